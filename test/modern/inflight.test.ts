// maxInflightRequests on the 2026-07-28 leg: every modern request is its own throwaway session, so the
// per-session bound of 2025 never applies there; instead a client (its identity with auth, its address
// without; the process on stdio) may have that many modern requests in flight at once. Past it: 429
// (HTTP) / an error answer (stdio) with -32600 and the bound in data, and the server goes on.
import { PassThrough } from 'node:stream'
import t, { type Test } from 'tap'
import type { MCPPluginOptions } from '../../src/index.js'
import { ProtocolServer } from '../../src/protocol/protocol-server.js'
import { Session } from '../../src/protocol/session.js'
import { StdioRunner } from '../../src/transports/stdio/runner.js'
import { connectStreamable } from '../helpers/clients.js'
import { readJsonLines } from '../helpers/json-lines.js'
import { modern, postModern } from '../helpers/modern.js'
import { serve } from '../helpers/serve.js'
import { until } from '../helpers/wait.js'

const KEY_A = 'inflight-key-aaaaaaaaaaaaaaa'
const KEY_B = 'inflight-key-bbbbbbbbbbbbbbb'

/** A tool that holds its request until released, counting who is waiting. */
function gate () {
  let open!: () => void
  let opened = new Promise<void>((resolve) => { open = resolve })
  let waiting = 0
  return {
    tool: async () => {
      waiting++
      await opened
      waiting--
      return { content: [{ type: 'text' as const, text: 'released' }] }
    },
    get waiting () { return waiting },
    release () {
      open()
      opened = new Promise<void>((resolve) => { open = resolve })
    }
  }
}

/** The app with maxInflightRequests 2 and the `hold` tool; `call` makes one 2026-07-28 call of it (JSON only). */
async function holdingApp (t: Test, options: Partial<MCPPluginOptions>) {
  const held = gate()
  const { app, base } = await serve(t, { name: 'inflight', version: '1.0.0', maxInflightRequests: 2, ...options }, (app) => {
    app.mcp.tool({ name: 'hold' }, held.tool)
  })
  let nextId = 1
  async function call (headers: Record<string, string> = {}): Promise<{ status: number, body: any }> {
    const { status, body } = await postModern(`${base}/mcp`, modern(nextId++, 'tools/call', { name: 'hold', arguments: {} }), { ...headers, accept: 'application/json' })
    return { status, body }
  }
  return { app, base, held, call }
}

t.test('HTTP without auth: a client (its address) holds at most maxInflightRequests modern requests', async (t) => {
  const { base, held, call } = await holdingApp(t, {})
  const first = [call(), call()]
  await until(() => held.waiting === 2, { what: '2 held' })
  const refused = await call()
  t.equal(refused.status, 429)
  t.match(refused.body, { jsonrpc: '2.0', id: 3, error: { code: -32600, message: /Too many requests in flight for this client \(maxInflightRequests: 2\)/, data: { maxInflightRequests: 2 } } })

  // The 2025 leg keeps its own per-session bound: a session is served meanwhile.
  const { client } = await connectStreamable(`${base}/mcp`)
  t.teardown(() => client.close())
  t.ok((await client.listTools()).tools.length > 0, 'a 2025 session is not counted against the modern bound')

  held.release()
  for (const answer of await Promise.all(first)) t.match(answer, { status: 200, body: { result: { resultType: 'complete' } } })
  // The slots are free again.
  const again = call()
  await until(() => held.waiting === 1, { what: '1 held' })
  held.release()
  t.match(await again, { status: 200, body: { result: { content: [{ text: 'released' }] } } })
})

t.test('HTTP with auth: the bound is per principal; another principal is served', async (t) => {
  const { held, call } = await holdingApp(t, { auth: { type: 'apikey', options: { keys: [KEY_A, KEY_B] } } })
  const a = { 'x-api-key': KEY_A }
  const b = { 'x-api-key': KEY_B }
  const first = [call(a), call(a)]
  await until(() => held.waiting === 2, { what: '2 held' })
  t.equal((await call(a)).status, 429, 'A is at its bound')
  const fromB = call(b)
  await until(() => held.waiting === 3, { what: '3 held' })
  t.pass('B\'s request runs while A is at its bound')
  held.release()
  await Promise.all([...first, fromB])
})

t.test('stdio: the process\'s modern requests share the bound', async (t) => {
  const core = new ProtocolServer({ name: 'stdio-inflight', version: '1.0.0', pageSize: 100, requestTimeoutMs: 1000, logger: { error: () => {} }, maxInflightRequests: 2 })
  const held = gate()
  core.tool({ name: 'hold' }, held.tool)
  const input = new PassThrough()
  const output = new PassThrough()
  const runner = new StdioRunner(core, { input, output, maxMessageBytes: 1 << 20 })
  runner.start()
  t.teardown(async () => { await runner.stop() })
  const lines = readJsonLines(output)
  const answerTo = async (id: number): Promise<any> => await lines.next((line) => line.id === id)
  for (const id of [1, 2, 3]) input.write(JSON.stringify(modern(id, 'tools/call', { name: 'hold', arguments: {} })) + '\n')
  t.match(await answerTo(3), { id: 3, error: { code: -32600, data: { maxInflightRequests: 2 } } })
  await until(() => held.waiting === 2, { what: '2 held' })
  held.release()
  t.match(await answerTo(1), { id: 1, result: { resultType: 'complete' } })
  t.match(await answerTo(2), { id: 2, result: { resultType: 'complete' } })
  input.write(JSON.stringify(modern(4, 'tools/list')) + '\n')
  t.match(await answerTo(4), { id: 4, result: { resultType: 'complete' } }, 'served again once the slots are free')
})

t.test('clients with nothing in flight are forgotten in bulk; each client keeps its own bound throughout', async (t) => {
  const core = new ProtocolServer({ name: 'sweep', version: '1.0.0', pageSize: 100, requestTimeoutMs: 1000, logger: { error: () => {} }, maxInflightRequests: 1 })
  const begin = (client: string): Session => {
    const session = new Session('', { send: () => {}, close: () => {} })
    session.generation = 'modern'
    core.beginModernRequest(session, { principal: undefined, client, validUntil: undefined, bytes: 0, transport: 'stdio', peer: undefined })
    return session
  }
  for (let i = 0; i < 3000; i++) core.endModernRequest(begin(`client-${i}`))
  // The per-client counts are private; their bound is the point of the sweep, so it is read here.
  const counts = (core as unknown as { modernRequests: { perClient: Map<string, number> } }).modernRequests.perClient
  t.ok(counts.size <= 1025, `3,000 clients come and go; ${counts.size} counts kept`)
  const held = begin('client-7')
  t.throws(() => begin('client-7'), { code: -32600, data: { maxInflightRequests: 1 } }, 'a client at its bound is refused')
  t.doesNotThrow(() => core.endModernRequest(begin('client-8')), 'another client is served')
  core.endModernRequest(held)
  t.doesNotThrow(() => core.endModernRequest(begin('client-7')), 'the client is served again once its request ended')
})
