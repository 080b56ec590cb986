// MCP 2026-07-28 on stdio, over a real child process: the era is pinned by the first message
// (server/discover pins nothing), every rung of the ladder answers with the request's id, results are
// shaped, logs follow the request's level, notifications/cancelled aborts a modern request.
import { PassThrough } from 'node:stream'
import t from 'tap'
import { ProtocolServer } from '../../src/protocol/protocol-server.js'
import { StdioRunner } from '../../src/transports/stdio/runner.js'
import { registerCatalog } from '../fixtures/catalog.js'
import { readJsonLines } from '../helpers/json-lines.js'
import { MODERN, meta, modern } from '../helpers/modern.js'
import { spawnStdioFixture } from '../helpers/stdio-child.js'
import { until } from '../helpers/wait.js'

const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']
const INIT = { jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } }

t.test('server/discover pins nothing: a dual-era client may still initialize, and discover keeps answering', async (t) => {
  const server = spawnStdioFixture(t, 'stdio-server.ts')
  const discovered = await server.call(modern(1, 'server/discover'))
  t.match(discovered, {
    id: 1,
    result: {
      supportedVersions: [MODERN, ...LEGACY_VERSIONS],
      capabilities: { tools: {}, resources: {}, prompts: {} },
      resultType: 'complete',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'catalog', version: '1.0.0' } },
      ttlMs: 0,
      cacheScope: 'private'
    }
  })
  const init = await server.call(INIT)
  t.match(init, { id: 'init', result: { protocolVersion: '2025-11-25', serverInfo: { name: 'catalog' } } }, 'legacy after the probe')
  const tools = await server.call({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: meta() } })
  t.ok(Array.isArray(tools.result.tools))
  t.notOk('resultType' in tools.result, 'the process is legacy now: even a claim is served the legacy way')
  t.match(await server.call(modern(3, 'server/discover')), { id: 3, result: { resultType: 'complete' } }, 'discover still answers')
  t.match(await server.call({ jsonrpc: '2.0', id: 4, method: 'ping' }), { id: 4, result: {} })
})

t.test('the first claim-carrying request pins the process to 2026-07-28; every rung answers with the id', async (t) => {
  const server = spawnStdioFixture(t, 'stdio-server.ts')
  const sum = await server.call(modern(1, 'tools/call', { name: 'add', arguments: { a: 2, b: 3 } }))
  t.same(sum, { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: '5' }], resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'catalog', version: '1.0.0' } } } })

  const init = await server.call(INIT)
  t.same(init, { jsonrpc: '2.0', id: 'init', error: { code: -32022, message: 'Unsupported protocol version', data: { supported: [MODERN], requested: '2025-11-25' } } }, 'a later initialize: -32022')
  t.match(await server.call({ jsonrpc: '2.0', id: 2, method: 'tools/list' }), { id: 2, error: { code: -32602 } }, 'a claim-less request: -32602')
  t.match(await server.call({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN } } }), { id: 3, error: { code: -32602, message: /clientCapabilities/ } })
  t.match(await server.call(modern(4, 'tools/list', {}, { 'io.modelcontextprotocol/protocolVersion': '1900-01-01' })), {
    id: 4, error: { code: -32022, data: { supported: [MODERN, ...LEGACY_VERSIONS], requested: '1900-01-01' } }
  })
  for (const method of ['ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe', 'initialize', 'no/such']) {
    t.match(await server.call(modern(method, method)), { id: method, error: { code: -32601 } }, method)
  }
  t.match(await server.call(modern(5, 'resources/read', { uri: 'docs://missing' })), { id: 5, error: { code: -32602, data: { uri: 'docs://missing' } } })
  const pixel = await server.call(modern(6, 'resources/read', { uri: 'images://pixel.png' }))
  t.match(pixel.result, { contents: [{ blob: /^iVBOR/ }], resultType: 'complete', ttlMs: 0, cacheScope: 'private' })
  t.match(await server.call(modern(7, 'tools/call', { name: 'weather', arguments: { city: 'Rome' } })), { result: { structuredContent: { city: 'Rome' }, resultType: 'complete' } })

  // Logs at or above the request's level only; progress; notifications/cancelled aborts a modern request.
  server.send(modern(11, 'tools/call', { name: 'progress', arguments: { steps: 2 } }, { progressToken: 'p', 'io.modelcontextprotocol/logLevel': 'info' }))
  const withLogs = await server.answer(11)
  t.same(withLogs.before.filter((m) => m.method === 'notifications/progress').map((m) => m.params.progress), [1, 2])
  t.same(withLogs.before.filter((m) => m.method === 'notifications/message').map((m) => m.params), [{ level: 'info', data: { done: 2 } }])
  server.send(modern(12, 'tools/call', { name: 'progress', arguments: { steps: 1 } }, { 'io.modelcontextprotocol/logLevel': 'error' }))
  t.same((await server.answer(12)).before, [], 'an info log under an error level: nothing')
  server.send(modern(13, 'tools/call', { name: 'progress', arguments: { steps: 1 } }))
  t.same((await server.answer(13)).before, [], 'no level asked: no logs at all')

  server.send(modern(14, 'tools/call', { name: 'wait_for_abort', arguments: { tag: 'stdio-modern' } }, { progressToken: 14 }))
  t.match(await server.next(), { method: 'notifications/progress', params: { progressToken: 14 } })
  server.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 14, reason: 'changed my mind' } })
  await until(() => server.stderr().includes('ABORTED stdio-modern'), { what: 'the handler to see its signal abort' })
  t.pass('the handler saw its signal abort')
  t.match(await server.call(modern(15, 'tools/list')), { id: 15, result: { resultType: 'complete' } }, 'no answer to the cancelled request; the next one is served')
})

// The pinning variants on the same StdioRunner over in-memory pipes (one child process per case would
// only repeat the process start).
function memoryServer (protocols?: Array<'modern' | 'legacy'>) {
  const core = new ProtocolServer({ name: 'catalog', version: '1.0.0', pageSize: 100, requestTimeoutMs: 1000, logger: { error: () => {} }, protocols })
  registerCatalog(core)
  const input = new PassThrough()
  const output = new PassThrough()
  const runner = new StdioRunner(core, { input, output, maxMessageBytes: 1 << 20 })
  runner.start()
  const lines = readJsonLines(output)
  async function call (message: Record<string, unknown>): Promise<any> {
    input.write(JSON.stringify(message) + '\n')
    return await lines.next((line) => line.id === message.id)
  }
  return { call, stop: async () => { await runner.stop() } }
}

t.test('a claim-less first message pins legacy: later claims are not served the modern way', async (t) => {
  const server = memoryServer()
  t.teardown(server.stop)
  t.match(await server.call({ jsonrpc: '2.0', id: 1, method: 'ping' }), { id: 1, result: {} })
  t.match(await server.call(modern(2, 'tools/list')), { id: 2, error: { code: -32600, message: /not initialized/ } }, 'as before: initialize first')
  t.match(await server.call(modern(3, 'server/discover')), { id: 3, result: { resultType: 'complete' } }, 'discover still answers')
})

t.test('protocols on stdio: modern only refuses initialize with -32022; legacy only keeps -32601 for discover', async (t) => {
  const modernOnly = memoryServer(['modern'])
  t.teardown(modernOnly.stop)
  t.match(await modernOnly.call(INIT), { id: 'init', error: { code: -32022, data: { supported: [MODERN] } } })
  t.match(await modernOnly.call(modern(1, 'server/discover')), { result: { supportedVersions: [MODERN] } })
  t.match(await modernOnly.call({ jsonrpc: '2.0', id: 'x', method: 'tools/list' }), { id: 'x', error: { code: -32602 } })

  const legacyOnly = memoryServer(['legacy'])
  t.teardown(legacyOnly.stop)
  t.match(await legacyOnly.call(modern(1, 'server/discover')), { id: 1, error: { code: -32601 } }, 'the probe fails: a dual-era client falls back')
  t.match(await legacyOnly.call(INIT), { id: 'init', result: { protocolVersion: '2025-11-25' } })
})
