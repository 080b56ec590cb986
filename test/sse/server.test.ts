import t from 'tap'
import { get as httpGet, type IncomingMessage } from 'node:http'
import { MCPServer } from '../../src/index.js'
import { connectSse } from '../helpers/clients.js'
import { registerCatalog } from '../fixtures/catalog.js'

function sseServer (port = 0): MCPServer {
  const server = new MCPServer({ name: 'catalog', version: '1.0.0', logLevel: 'silent', transport: { type: 'sse', options: { port } } })
  registerCatalog(server)
  return server
}

t.test('MCPServer with SSE serves the SDK client and reports where', async (t) => {
  const server = sseServer()
  const info = await server.start()
  t.teardown(() => server.stop())
  if (info.transport !== 'sse') throw new Error('expected sse')
  t.equal(info.host, '127.0.0.1', 'loopback by default')
  t.ok(info.port > 0, 'the port actually bound')
  t.equal(info.url, `http://127.0.0.1:${info.port}`)
  const { client } = await connectSse(`${info.url}/sse`)
  t.teardown(() => client.close())
  t.equal(server.sessionCount, 1)
  const tools = await client.listTools()
  t.ok(tools.tools.some((tool) => tool.name === 'add'), 'what was registered on the server is served')
  t.equal(server.broadcast({ method: 'notifications/message', params: { level: 'info', data: 'x' } }), 1)
})

t.test('start() rejects on a busy port, and leaves nothing open', async (t) => {
  const first = sseServer()
  const info = await first.start()
  t.teardown(() => first.stop())
  if (info.transport !== 'sse') throw new Error('expected sse')
  const second = sseServer(info.port)
  await t.rejects(second.start(), { code: 'FST_MCP_START_FAILED', message: new RegExp(`port ${info.port} on 127\\.0\\.0\\.1 is already in use`) })
  await second.stop()
  t.pass('stop() after a failed start is fine')
})

t.test('stop() ends every stream promptly and is idempotent', async (t) => {
  const server = sseServer()
  const info = await server.start()
  if (info.transport !== 'sse') throw new Error('expected sse')
  const { client } = await connectSse(`${info.url}/sse`)
  t.teardown(() => client.close())
  const raw = await Promise.all([0, 1, 2].map(async () => await new Promise<IncomingMessage>((resolve) => {
    httpGet(`${info.url}/sse`, resolve).on('error', () => {})
  })))
  const ended = raw.map(async (response) => await new Promise<void>((resolve) => {
    response.resume()
    response.once('close', resolve)
  }))
  t.equal(server.sessionCount, 4)
  const started = Date.now()
  await Promise.all([server.stop(), server.stop()])
  await server.stop()
  t.ok(Date.now() - started < 1500, `stopped in ${Date.now() - started} ms`)
  await Promise.all(ended)
  t.pass('every stream was ended')
  t.equal(server.sessionCount, 0)
  await t.rejects(fetch(`${info.url}/sse`), 'the listener is closed')
})

t.test('start() names an address that is not on this machine', async (t) => {
  // 192.0.2.1 is TEST-NET-1: binding fails locally, no packet is sent.
  const server = new MCPServer({ logLevel: 'silent', transport: { type: 'sse', options: { port: 0, host: '192.0.2.1' } } })
  await t.rejects(server.start(), { code: 'FST_MCP_START_FAILED', message: /address 192\.0\.2\.1 is not available/ })
  await server.stop()
})
