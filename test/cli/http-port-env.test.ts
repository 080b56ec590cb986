// FASTIFY_MCP_SERVER_HTTP_PORT, what `dev --http` sets: MCPServer serves over HTTP when its
// options name no transport, never overrides one they name, and refuses a value that is not a port.
import t from 'tap'
import { MCPServer } from '../../src/index.js'
import { HTTP_PORT_ENV } from '../../src/server.js'

t.beforeEach(() => { delete process.env[HTTP_PORT_ENV] })
t.afterEach(() => { delete process.env[HTTP_PORT_ENV] })

t.test('no transport named: HTTP on the port given', async (t) => {
  t.equal(HTTP_PORT_ENV, 'FASTIFY_MCP_SERVER_HTTP_PORT')
  process.env[HTTP_PORT_ENV] = '0'
  const server = new MCPServer({ name: 'env', version: '1.0.0', logLevel: 'silent' })
  t.teardown(async () => { await server.stop() })
  t.match(server.options.transport, { type: 'sse', options: { port: 0, host: '127.0.0.1' } })
  const info = await server.start() as { transport: string, url?: string }
  t.equal(info.transport, 'sse')
  t.match(info.url, /^http:\/\/127\.0\.0\.1:\d+$/)
  t.same(new MCPServer(undefined).options.transport.type, 'sse', 'no options at all')
})

t.test('a transport named in the options wins; an empty value is no value', async (t) => {
  process.env[HTTP_PORT_ENV] = '8080'
  t.equal(new MCPServer({ transport: { type: 'stdio' } }).options.transport.type, 'stdio')
  process.env[HTTP_PORT_ENV] = ''
  t.equal(new MCPServer({}).options.transport.type, 'stdio')
})

t.test('a value that is not a port is refused, naming the variable', async (t) => {
  process.env[HTTP_PORT_ENV] = 'eighty'
  t.throws(() => new MCPServer({}), { code: 'FST_MCP_INVALID_OPTIONS', message: /FASTIFY_MCP_SERVER_HTTP_PORT: expected a port number, got "eighty"/ })
  process.env[HTTP_PORT_ENV] = '70000'
  t.throws(() => new MCPServer({}), { code: 'FST_MCP_INVALID_OPTIONS', message: /transport\.options\.port/ })
})
