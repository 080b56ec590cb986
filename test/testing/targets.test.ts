// What createTestClient accepts and refuses, and what close() leaves behind.
import Fastify from 'fastify'
import t from 'tap'
import mcp, { ErrorCode, McpError, MCPServer, Type } from '../../src/index.js'
import { createTestClient } from '../../src/testing/index.js'

function server (): MCPServer {
  const created = new MCPServer({ name: 'targets', version: '1.0.0', logLevel: 'silent' })
  created.tool({ name: 'echo', inputSchema: Type.Object({ text: Type.String() }) }, async ({ text }) => ({ content: [{ type: 'text', text }] }))
  return created
}

t.test('an MCPServer: one open client at a time, never a started server, no HTTP options', async (t) => {
  const target = server()
  const first = await createTestClient(target)
  await t.rejects(createTestClient(target), /already has an open test client: close it first/)
  await first.close()
  await first.close()
  await t.rejects(first.callTool('echo', { text: 'x' }), { code: ErrorCode.ConnectionClosed }, 'a closed client refuses, as McpError')
  const second = await createTestClient(target, { protocolVersion: '2025-11-25' })
  t.same((await second.callTool('echo', { text: 'again' })).content, [{ type: 'text', text: 'again' }], 'the next client after a close')
  await second.close()
  await t.rejects(createTestClient(target, { headers: { authorization: 'x' } }), TypeError)
  await t.rejects(createTestClient(target, { path: '/mcp' }), TypeError)
  await t.rejects(createTestClient(target, { protocolVersion: '2024-11-05' as never }), /protocolVersion must be one of 2026-07-28, 2025-11-25/)

  const started = new MCPServer({ name: 'started', version: '1.0.0', logLevel: 'silent', transport: { type: 'sse', options: { port: 0 } } })
  await started.start()
  t.teardown(async () => { await started.stop() })
  await t.rejects(createTestClient(started), /needs an MCPServer that has not been started/)
})

t.test('a Fastify app: the plugin and its Streamable HTTP route are required; path for a prefix', async (t) => {
  await t.rejects(createTestClient({} as never), /needs an MCPServer or a Fastify app with the fastify-mcp-server plugin registered/)
  const plain = Fastify()
  t.teardown(async () => { await plain.close() })
  await t.rejects(createTestClient(plain), /no fastify-mcp-server plugin registered/)

  const app = Fastify()
  t.teardown(async () => { await app.close() })
  await app.register(mcp, { name: 'prefixed', version: '1.0.0', prefix: '/api' })
  app.mcp.tool({ name: 'echo', inputSchema: Type.Object({ text: Type.String() }) }, async ({ text }) => ({ content: [{ type: 'text', text }] }))
  await t.rejects(createTestClient(app), /serves no Streamable HTTP endpoint at POST \/mcp: pass options.path/)
  for (const protocolVersion of ['2026-07-28', '2025-11-25'] as const) {
    const client = await createTestClient(app, { path: '/api/mcp', protocolVersion, clientInfo: { name: 'mine', version: '9' }, logLevel: false })
    t.same((await client.callTool('echo', { text: 'hi' })).content, [{ type: 'text', text: 'hi' }])
    t.equal(client.logs.length, 0)
    await client.close()
  }
})

t.test('request(): any method, its result untouched', async (t) => {
  const client = await createTestClient(server())
  t.teardown(async () => { await client.close() })
  const raw = await client.request('tools/list')
  t.equal(raw.resultType, 'complete', 'the envelope is there')
  t.match(raw._meta, { 'io.modelcontextprotocol/serverInfo': { name: 'targets' } })
  await t.rejects(client.request('ping'), new McpError(ErrorCode.MethodNotFound, 'Method not found: ping'), '2026-07-28 has no ping')
})
