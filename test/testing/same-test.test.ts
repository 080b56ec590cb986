// One tool test, written once with createTestClient, passing against an MCPServer (its stdio
// runner, in process) and against a Fastify app with the plugin behind JWT auth (through
// inject), on both protocol generations; elicitation, sampling and roots answered by the test's
// handlers on both. A wrong credential gets the 401.
import Fastify, { type FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import mcp, { McpError, MCPServer } from '../../src/index.js'
import { createTestClient, TransportError, type TestClient, type TestClientOptions, type TestProtocolVersion } from '../../src/testing/index.js'
import { bearer } from '../helpers/auth-app.js'
import { nowSeconds, signHmac } from '../helpers/auth-keys.js'
import { registerCatalog } from '../helpers/testing-catalog.js'

const SECRET = 'testing-client-secret-0123456789abcdef'
const token = (sub: string): string => signHmac(SECRET, { sub, exp: nowSeconds() + 300 })

/** The test's answers to what the server asks of the client. */
const handlers: TestClientOptions = {
  onElicit: async (request) => request.message === 'Your name?'
    ? { action: 'accept', content: { name: 'Ada' } }
    : { action: 'accept', content: { level: 'strict' } },
  onSample: async (request) => ({ role: 'assistant', model: 'test-model', content: { type: 'text', text: `Hello, ${String((request.messages[0]?.content as { text: string }).text.slice(6))}!` } }),
  onListRoots: async () => ({ roots: [{ uri: 'file:///work', name: 'work' }] })
}

/** The tool test, written once. */
async function toolTest (t: Test, client: TestClient, who: string): Promise<void> {
  const { tools } = await client.listTools()
  t.same(tools.map((tool) => tool.name), ['add', 'stats', 'steps', 'greet', 'whoami', 'wait'])
  t.same(tools[0]?.inputSchema.required, ['a', 'b'])

  t.same(await client.callTool('add', { a: 2, b: 3 }), { content: [{ type: 'text', text: '5' }] }, 'a result, without the generation\'s envelope')
  const stats = await client.callTool<{ words: number }>('stats', { text: 'one two three' })
  t.equal(stats.structuredContent?.words, 3, 'structured content, typed')
  const invalid = await client.callTool('add', { a: 'x', b: 1 })
  t.equal(invalid.isError, true, 'invalid arguments: the tool\'s own error, not a throw')

  t.same(await client.callTool('steps', { count: 2 }), { content: [{ type: 'text', text: 'done' }] })
  t.match(client.progress, [{ progress: 1, total: 2, message: 'step 1' }, { progress: 2, total: 2, message: 'step 2' }], 'progress collected')
  t.match(client.logs, [{ level: 'info', data: 'step 1', logger: 'steps' }, { level: 'info', data: 'step 2' }, { level: 'debug', data: { done: true } }], 'logs collected')

  const greeting = await client.callTool('greet')
  t.same(greeting.content, [{ type: 'text', text: 'Hello, Ada! (file:///work)' }], 'elicitation, sampling and roots answered by the handlers')
  t.same((await client.callTool('whoami')).content, [{ type: 'text', text: who }])

  const error = await client.callTool('nope').catch((thrown: unknown) => thrown)
  t.type(error, McpError, 'a protocol error is thrown as McpError')
  t.match(error, { code: -32602, message: 'Unknown tool: nope' })

  t.same(await client.readResource('notes://today'), { contents: [{ uri: 'notes://today', mimeType: 'text/plain', text: 'buy milk' }] })
  t.same((await client.readResource('notes://day/monday')).contents, [{ uri: 'notes://day/monday', text: 'notes of monday' }])
  t.same((await client.listResources()).resources.map((resource) => resource.uri), ['notes://today'])
  t.same((await client.listResourceTemplates()).resourceTemplates.map((template) => template.uriTemplate), ['notes://day/{day}'])
  t.same(await client.complete({ type: 'ref/resource', uri: 'notes://day/{day}' }, { name: 'day', value: 't' }), { completion: { values: ['tuesday'], total: 1, hasMore: false } })
  t.same((await client.listPrompts()).prompts.map((prompt) => prompt.name), ['review'])
  t.same(await client.getPrompt('review', { code: 'x = 1' }), { messages: [{ role: 'user', content: { type: 'text', text: 'Review (strict): x = 1' } }] }, 'a prompt that asks, answered the same way')
  const found = await client.discover()
  t.match(found, { serverInfo: { name: 'catalog', version: '1.0.0' }, capabilities: { tools: { listChanged: true } } })
  t.ok(found.supportedVersions.includes(client.protocolVersion))
}

/** A listen: the same changes on both generations. */
async function listenTest (t: Test, client: TestClient, registry: MCPServer | FastifyInstance['mcp']): Promise<void> {
  const changes = await client.listen({ toolsListChanged: true, resourceSubscriptions: ['notes://today', 'notes://unknown'] })
  t.same(changes.acknowledged, { toolsListChanged: true, resourceSubscriptions: ['notes://today'] }, 'what the server honours')
  const late = registry.tool({ name: 'late' }, async () => ({ content: [] }))
  t.same(await changes.next(), { method: 'notifications/tools/list_changed' })
  registry.notifyResourceUpdated('notes://today')
  t.same(await changes.next(), { method: 'notifications/resources/updated', params: { uri: 'notes://today' } })
  await changes.close()
  late.remove()
}

for (const protocolVersion of ['2026-07-28', '2025-11-25'] as TestProtocolVersion[]) {
  t.test(`${protocolVersion}: an MCPServer, through its stdio runner`, async (t) => {
    const server = new MCPServer({ name: 'catalog', version: '1.0.0', logLevel: 'silent' })
    registerCatalog(server)
    const client = await createTestClient(server, { protocolVersion, ...handlers })
    t.teardown(async () => { await client.close() })
    t.equal(client.protocolVersion, protocolVersion)
    await toolTest(t, client, 'nobody')
    await listenTest(t, client, server)
  })

  t.test(`${protocolVersion}: a Fastify app with the plugin and JWT auth, through inject`, async (t) => {
    const app = Fastify()
    await app.register(mcp, { name: 'catalog', version: '1.0.0', auth: { type: 'jwt', options: { secret: SECRET, algorithms: ['HS256'] } } })
    registerCatalog(app.mcp)
    t.teardown(async () => { await app.close() })
    const client = await createTestClient(app, { protocolVersion, headers: bearer(token('alice')), ...handlers })
    t.teardown(async () => { await client.close() })
    await toolTest(t, client, 'alice')
    await listenTest(t, client, app.mcp)

    // The wrong credential: a 2025 session is refused at initialize, a 2026 request at once.
    const refused = await createTestClient(app, { protocolVersion, headers: bearer('not-a-token') })
      .then(async (wrong) => { try { return await wrong.listTools() } finally { await wrong.close() } })
      .catch((error: unknown) => error)
    t.type(refused, TransportError)
    t.type(refused, McpError, 'a TransportError is an McpError too')
    t.match(refused, { status: 401, headers: { 'www-authenticate': 'Bearer realm="mcp"' }, body: { error: 'invalid_token' } })
  })
}
