// A predicate runs once per call: the door (before dispatch) and the handler behind it both need the
// verdict, and the handler reuses the door's instead of asking again. Over stdio, legacy SSE,
// Streamable HTTP 2025 and 2026-07-28, through the official clients. A middleware that changes the
// tool name makes the handler judge the new definition afresh (the door's verdict was on another).
import t, { type Test } from 'tap'
import { PassThrough } from 'node:stream'
import Fastify from 'fastify'
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client'
import mcp, { Type, type MCPRegistryApi, type Principal } from '../../src/index.js'
import { ProtocolServer } from '../../src/protocol/protocol-server.js'
import { StdioRunner } from '../../src/transports/stdio/runner.js'
import { connectSse, connectStreamable } from '../helpers/clients.js'
import { collectJsonLines } from '../helpers/json-lines.js'
import { MODERN } from '../helpers/modern.js'

interface Asked { by: Map<string, number> }

/** `guarded` and `alias_target` under predicates that count their runs; `alias` is renamed to `alias_target` by a middleware. */
function register (server: MCPRegistryApi): Asked {
  const asked: Asked = { by: new Map() }
  const counting = (name: string) => ({
    allow: async (_principal: Principal | undefined, ctx: { method: string }) => {
      const key = `${ctx.method} ${name}`
      asked.by.set(key, (asked.by.get(key) ?? 0) + 1)
      return true
    }
  })
  server.use(async (op, next) => {
    if (op.name === 'alias') op.params = { ...op.params, name: 'alias_target' }
    return await next()
  })
  server.tool({ name: 'guarded', inputSchema: Type.Object({}), auth: counting('guarded') }, async () => ({ content: [{ type: 'text', text: 'in' }] }))
  server.tool({ name: 'alias', inputSchema: Type.Object({}), auth: counting('alias') }, async () => ({ content: [{ type: 'text', text: 'alias itself' }] }))
  server.tool({ name: 'alias_target', inputSchema: Type.Object({}), auth: counting('alias_target') }, async () => ({ content: [{ type: 'text', text: 'target' }] }))
  return asked
}

interface AnyClient {
  callTool: (params: { name: string, arguments?: Record<string, unknown> }) => Promise<unknown>
}
const text = (result: unknown): string => (result as { content: Array<{ text: string }> }).content[0]?.text ?? ''

async function exercise (t: Test, client: AnyClient, asked: Asked): Promise<void> {
  asked.by.clear()
  t.equal(text(await client.callTool({ name: 'guarded', arguments: {} })), 'in')
  t.equal(text(await client.callTool({ name: 'guarded', arguments: {} })), 'in')
  t.equal(asked.by.get('tools/call guarded'), 2, 'two calls, two runs of the predicate: once each')
  t.equal(text(await client.callTool({ name: 'alias', arguments: {} })), 'target', 'the middleware renamed the call')
  t.equal(asked.by.get('tools/call alias'), 1, 'the door judged the name the client sent')
  t.equal(asked.by.get('tools/call alias_target'), 1, 'the handler judged the renamed definition itself')
}

async function httpApp (t: Test): Promise<{ url: string, asked: Asked }> {
  const app = Fastify({ forceCloseConnections: true })
  t.teardown(() => app.close())
  await app.register(mcp, { name: 'once', version: '1.0.0' })
  const asked = register(app.mcp)
  return { url: await app.listen({ port: 0, host: '127.0.0.1' }), asked }
}

t.test('stdio', async (t) => {
  const core = new ProtocolServer({ name: 'once', version: '1', pageSize: 10, requestTimeoutMs: 5000, logger: { error: () => {} } })
  const asked = register(core)
  const input = new PassThrough()
  const output = new PassThrough()
  const runner = new StdioRunner(core, { input, output, maxMessageBytes: 1 << 20 })
  runner.start()
  t.teardown(async () => { await runner.stop() })
  const waiters: Array<() => void> = []
  const lines = collectJsonLines(output, () => { waiters.splice(0).forEach((wake) => wake()) })
  let next = 0
  const client: AnyClient = {
    callTool: async (params) => {
      const id = ++next
      input.write(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params }) + '\n')
      const deadline = Date.now() + 5000
      while (lines.length === 0) {
        if (Date.now() > deadline) throw new Error('no answer within 5 s')
        await new Promise<void>((resolve) => { waiters.push(resolve); setTimeout(resolve, 100).unref() })
      }
      const answer = lines.shift()
      t.equal(answer.id, id)
      return answer.result
    }
  }
  input.write(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } }) + '\n')
  while (lines.length === 0) await new Promise<void>((resolve) => { waiters.push(resolve); setTimeout(resolve, 100).unref() })
  lines.shift()
  await exercise(t, client, asked)
})

t.test('legacy SSE', async (t) => {
  const { url, asked } = await httpApp(t)
  const { client } = await connectSse(`${url}/sse`)
  t.teardown(() => client.close())
  await exercise(t, client, asked)
})

t.test('Streamable HTTP, 2025-11-25 session', async (t) => {
  const { url, asked } = await httpApp(t)
  const { client } = await connectStreamable(`${url}/mcp`)
  t.teardown(() => client.close())
  await exercise(t, client, asked)
})

t.test('Streamable HTTP, 2026-07-28', async (t) => {
  const { url, asked } = await httpApp(t)
  const client = new ModernClient({ name: 'sdk-v2', version: '2.4.0' }, { versionNegotiation: { mode: { pin: MODERN } } })
  await client.connect(new ModernTransport(new URL(`${url}/mcp`)))
  t.teardown(() => client.close())
  await exercise(t, client, asked)
})
