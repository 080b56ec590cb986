import t from 'tap'
import { MCPServer } from '../src/index.js'

t.test('invalid options never construct a server', async (t) => {
  t.throws(() => new MCPServer({ transport: { type: 'carrier-pigeon' } } as never), { code: 'FST_MCP_INVALID_OPTIONS', message: /transport\.type/ })
})

t.test('no options means stdio with every default filled', async (t) => {
  const server = new MCPServer()
  t.same(server.options.transport, { type: 'stdio' })
  t.equal(server.options.name, 'fastify-mcp-server')
  t.ok(Object.isFrozen(server.options))
  await server.stop()
  await server.stop()
  t.pass('stop() before start() is a no-op, and idempotent')
  await t.rejects(server.start(), { code: 'FST_MCP_ALREADY_STARTED' }, 'a stopped server cannot start again')
  await server.closed
})

t.test('start() twice is refused', async (t) => {
  const server = new MCPServer({ transport: { type: 'sse', options: { port: 0 } } })
  const info = await server.start()
  t.teardown(() => server.stop())
  t.match(info, { transport: 'sse', host: '127.0.0.1', url: /^http:\/\/127\.0\.0\.1:\d+$/ })
  await t.rejects(server.start(), { code: 'FST_MCP_ALREADY_STARTED' })
})
