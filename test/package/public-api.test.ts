import t from 'tap'
import * as errors from '../../src/errors.js'
import * as api from '../../src/index.js'
import { ErrorCode, MCPServer, Type, mcp, type HttpStartInfo, type StartInfo, type StdioStartInfo } from '../../src/index.js'

// The package root is the API that has to be kept: a name appears here on purpose or not at all.
t.test('the package root exports exactly the chosen runtime names', async (t) => {
  t.same(Object.keys(api).sort(), [
    'AlreadyStartedError', 'AtCapacityError', 'AuthDiscoveryFailedError', 'AuthUnavailableError', 'BodyTooLargeError',
    'DuplicateDefinitionError', 'ErrorCode', 'ForbiddenOriginError', 'ForeignSessionError', 'InputRequiredError', 'InsufficientScopeError',
    'InvalidAuthRequestError', 'InvalidDefinitionError', 'InvalidHostError', 'InvalidMessageError', 'InvalidOptionsError', 'MCPServer', 'McpError', 'MemoryTaskStore',
    'MethodNotAllowedError', 'MissingSessionError', 'NotAcceptableError', 'NotFoundError', 'ParseError', 'PluginOptionsSchema',
    'RateLimitedError', 'RedisUnreachableError', 'RouteToolConfigError', 'RouteToolNameClashError', 'RouteToolSchemaError', 'ScaleUnavailableError', 'ServerOptionsSchema', 'SessionQuotaError', 'StartFailedError', 'StreamConflictError', 'TaskLimitError', 'Type', 'UnauthorizedError', 'UnknownSessionError',
    'UnsupportedMediaTypeError', 'UnsupportedProtocolVersionError', 'default', 'mcp', 'principalKey', 'samePrincipal'
  ])
  t.equal(api.default, mcp, 'the default export is the plugin, as Fastify plugins have it')
})

t.test('every coded error of src/errors.ts is exported from the root', async (t) => {
  for (const [name, value] of Object.entries(errors)) t.equal((api as Record<string, unknown>)[name], value, name)
})

t.test('one JSON-RPC code per meaning; the server\'s own codes stay out of the range MCP reserves', async (t) => {
  const codes = Object.values(ErrorCode)
  t.equal(new Set(codes).size, codes.length, 'no two meanings share a code')
  for (const [name, code] of Object.entries(ErrorCode)) {
    if (code > -32600) t.ok(code <= -32000 && code >= -32019, `${name} (${code}) is in -32000..-32019`)
  }
})

t.test('start() resolves with the listener address for an HTTP configuration, no narrowing needed', async (t) => {
  const server = new MCPServer({ transport: { type: 'sse', options: { port: 0 } } })
  server.tool({ name: 'ping', inputSchema: Type.Object({}) }, async () => ({ content: [{ type: 'text', text: 'pong' }] }))
  t.teardown(() => server.stop())
  // Type-checked: `url` and `port` exist on the result's type because the options say `sse`.
  const { url, port, host } = await server.start()
  t.equal(host, '127.0.0.1')
  t.equal(url, `http://127.0.0.1:${port}`)
  const response = await fetch(`${url}/mcp`, { method: 'DELETE' })
  t.equal(response.status, 400, 'the listener at that url answers (a DELETE without a session is refused)')
  await response.body?.cancel()

  // The type follows the options: checked by the compiler, asserted here so the test is not vacuous.
  const stdioInfo: StartInfo<{ transport: { type: 'stdio' } }> = { transport: 'stdio' } satisfies StdioStartInfo
  const httpInfo: StartInfo<{ transport: { type: 'sse' } }> = { transport: 'sse', url, host, port } satisfies HttpStartInfo
  t.same([stdioInfo.transport, httpInfo.transport], ['stdio', 'sse'])
})
