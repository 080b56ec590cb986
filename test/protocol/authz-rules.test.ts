// Access rules at registration and on stdio: strict definition keys with coded errors naming the
// definition, rules never on the wire, `defaultAuth`, the once-at-start warning for definitions no
// caller can reach, and the stdio answers of the contract (-32005 with the missing scopes, -32006).
import t from 'tap'
import { PassThrough } from 'node:stream'
import { ProtocolServer } from '../../src/protocol/protocol-server.js'
import { StdioRunner } from '../../src/transports/stdio/runner.js'
import { MCPServer, Type } from '../../src/index.js'
import { collectJsonLines } from '../helpers/json-lines.js'

const silent = { error: () => {} }

function harness (core: ProtocolServer): { next: () => Promise<any>, send: (message: unknown) => void, stop: () => Promise<void> } {
  const input = new PassThrough()
  const output = new PassThrough()
  const runner = new StdioRunner(core, { input, output, maxMessageBytes: 1 << 20 })
  runner.start()
  const waiters: Array<() => void> = []
  const lines = collectJsonLines(output, () => { waiters.splice(0).forEach((wake) => wake()) })
  return {
    next: async () => {
      while (lines.length === 0) await new Promise<void>((resolve) => waiters.push(resolve))
      return lines.shift()
    },
    send: (message) => { input.write(JSON.stringify(message) + '\n') },
    stop: async () => { await runner.stop() }
  }
}

const init = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } }

t.test('unknown definition keys are coded errors naming the definition; rules never reach the wire', async (t) => {
  const server = new MCPServer()
  t.throws(() => server.tool({ name: 'typo', inputSchema: Type.Object({}), auht: { scopes: ['a'] } } as never, async () => ({ content: [] })),
    { code: 'FST_MCP_INVALID_DEFINITION', message: /tool definition: typo: unknown field "auht"/ })
  t.throws(() => server.resource({ uri: 'docs://x', name: 'x', secret: true } as never, async (uri) => ({ contents: [{ uri, text: '' }] })),
    { code: 'FST_MCP_INVALID_DEFINITION', message: /docs:\/\/x: unknown field "secret"/ })
  t.throws(() => server.prompt({ name: 'p', arguments: [{ name: 'a', requird: true }] } as never, async () => ({ messages: [] })),
    { code: 'FST_MCP_INVALID_DEFINITION', message: /p: argument a: unknown field "requird"/ })
  t.throws(() => server.tool({ name: 'bad', auth: { scopes: ['has space'] } }, async () => ({ content: [] })), { code: 'FST_MCP_INVALID_DEFINITION', message: /bad: auth.scopes/ })
  t.throws(() => server.tool({ name: 'bad2', auth: { role: 'x' } as never }, async () => ({ content: [] })), { message: /bad2: auth has no option "role"/ })
  t.throws(() => server.tool({ name: 'bad3', auth: {} }, async () => ({ content: [] })), { message: /bad3: auth needs scopes, allow, or both/ })
  t.throws(() => server.tool({ name: 'bad4', rateLimit: { max: 0, timeWindow: 1000 } }, async () => ({ content: [] })), { message: /bad4: rateLimit.max/ })
  t.throws(() => server.skill({ name: 'x', files: {}, scopes: [] } as never), { code: 'FST_MCP_INVALID_DEFINITION', message: /x: unknown field "scopes"/ })

  const core = new ProtocolServer({ name: 't', version: '1', pageSize: 10, requestTimeoutMs: 1000, logger: silent })
  core.tool({ name: 'guarded', inputSchema: Type.Object({}), auth: { scopes: ['a'], allow: () => true }, rateLimit: { max: 1, timeWindow: 1000 } }, async () => ({ content: [] }))
  const wire = core.registry.tools.get('guarded')?.wire
  t.same(Object.keys(wire ?? {}).sort(), ['inputSchema', 'name'], 'auth and rateLimit stay on the server')
})

t.test('stdio: a scope rule answers -32005 with the missing scopes; the server said so once at start', async (t) => {
  const warnings: string[] = []
  const core = new ProtocolServer({ name: 't', version: '1', pageSize: 10, requestTimeoutMs: 1000, logger: { error: () => {}, warn: (_details: unknown, message: string) => { warnings.push(message) } } as never })
  let ran = 0
  core.tool({ name: 'admin', inputSchema: Type.Object({}), auth: { scopes: ['admin:all', 'files:write'] } }, async () => {
    ran++
    return { content: [] }
  })
  core.tool({ name: 'open', inputSchema: Type.Object({}) }, async () => ({ content: [{ type: 'text', text: 'ok' }] }))
  core.verifyDefinitions()
  t.equal(warnings.length, 1)
  t.match(warnings[0], /1 definition\(s\) cannot be used by anyone: tool admin/)

  const h = harness(core)
  t.teardown(h.stop)
  h.send(init)
  await h.next()
  h.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
  t.same((await h.next()).result.tools.map((tool: { name: string }) => tool.name), ['open'], 'not listed: no caller may use it')
  h.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'admin', arguments: {} } })
  t.same(await h.next(), {
    jsonrpc: '2.0',
    id: 2,
    error: { code: -32005, message: 'Insufficient scope: this operation needs admin:all files:write', data: { requiredScopes: ['admin:all', 'files:write'], missingScopes: ['admin:all', 'files:write'] } }
  })
  t.equal(ran, 0)
})

t.test('defaultAuth applies to definitions without their own rule; their own rule wins', async (t) => {
  const core = new ProtocolServer({ name: 't', version: '1', pageSize: 10, requestTimeoutMs: 1000, logger: silent, defaultAuth: { allow: () => false } })
  core.tool({ name: 'hidden', inputSchema: Type.Object({}) }, async () => ({ content: [] }))
  core.tool({ name: 'public', inputSchema: Type.Object({}), auth: { allow: () => true } }, async () => ({ content: [{ type: 'text', text: 'yes' }] }))
  const h = harness(core)
  t.teardown(h.stop)
  h.send(init)
  await h.next()
  h.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
  t.same((await h.next()).result.tools.map((tool: { name: string }) => tool.name), ['public'])
  h.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'hidden', arguments: {} } })
  t.match(await h.next(), { id: 2, error: { code: -32602, message: 'Unknown tool: hidden' } })
  t.throws(() => new ProtocolServer({ name: 't', version: '1', pageSize: 10, requestTimeoutMs: 1000, logger: silent, defaultAuth: { allow: 'yes' as never } }),
    { code: 'FST_MCP_INVALID_DEFINITION', message: /defaultAuth: auth.allow must be a function/ })
})

t.test('stdio: a definition\'s rateLimit answers -32006 past its budget, the handler not run', async (t) => {
  const core = new ProtocolServer({ name: 't', version: '1', pageSize: 10, requestTimeoutMs: 1000, logger: silent })
  let ran = 0
  core.tool({ name: 'expensive', inputSchema: Type.Object({}), rateLimit: { max: 2, timeWindow: 60_000 } }, async () => {
    ran++
    return { content: [] }
  })
  const h = harness(core)
  t.teardown(h.stop)
  h.send(init)
  await h.next()
  for (const id of [1, 2, 3]) h.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'expensive', arguments: {} } })
  const answers = [await h.next(), await h.next(), await h.next()].sort((a, b) => a.id - b.id)
  t.match(answers[0], { id: 1, result: {} })
  t.match(answers[1], { id: 2, result: {} })
  t.match(answers[2], { id: 3, error: { code: -32006, message: /at most 2 requests per 60000 ms/, data: { limit: 2, windowMs: 60000 } } })
  t.ok(answers[2].error.data.retryAfterMs > 0 && answers[2].error.data.retryAfterMs <= 60_000)
  t.equal(ran, 2)
})

t.test('a message waiting at the door is not overtaken by the next line (its cancel)', async (t) => {
  const core = new ProtocolServer({ name: 't', version: '1', pageSize: 10, requestTimeoutMs: 1000, logger: silent })
  let release = (): void => {}
  const gate = new Promise<void>((resolve) => { release = resolve })
  let aborted = false
  core.tool({ name: 'slow', inputSchema: Type.Object({}), auth: { allow: async () => { await gate; return true } } }, async (_args, ctx) => {
    await new Promise((resolve) => { ctx.signal.addEventListener('abort', resolve) })
    aborted = true
    return { content: [] }
  })
  const h = harness(core)
  t.teardown(h.stop)
  h.send(init)
  await h.next()
  h.send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'slow', arguments: {} } })
  h.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5 } })
  h.send({ jsonrpc: '2.0', id: 6, method: 'tools/list' })
  release()
  t.match(await h.next(), { id: 6 }, 'the cancelled call sends nothing; the list after it answers')
  t.ok(aborted, 'the cancel reached the call it followed')
})
