// The official TypeScript SDK v2 client, pinned to 2026-07-28 so it cannot fall back, listening over
// Streamable HTTP and stdio: list_changed and resource updates reach its ordinary notification
// handlers, close() frees the server's stream, and a server shutdown is seen as a graceful end.
import t from 'tap'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import type { FastifyInstance } from 'fastify'
import { fixture } from '../helpers/clients.js'
import { listeningCatalogApp } from '../helpers/serve.js'
import { until } from '../helpers/wait.js'

// A generous probe timeout: a stdio fixture compiles its TypeScript on start, slowly on a busy machine.
const PINNED = { versionNegotiation: { mode: { pin: '2026-07-28' }, probe: { timeoutMs: 240_000 } } } as const

// Child processes that compile on start: more than the default per-file budget on a busy machine.
t.setTimeout(480_000)

/**
 * The SDK probes a server it spawns through the base StdioClientTransport in a sibling process
 * first (a second cold start of the fixture); a subclass is probed in place, on its one process.
 */
class InPlaceStdioTransport extends StdioClientTransport {}

const openStreams = (app: FastifyInstance): number => (app.mcp as unknown as { listen: { size: number } }).listen.size

function watch (client: Client) {
  const seen = { tools: 0, prompts: 0, updated: [] as string[] }
  client.setNotificationHandler('notifications/tools/list_changed', () => { seen.tools++ })
  client.setNotificationHandler('notifications/prompts/list_changed', () => { seen.prompts++ })
  client.setNotificationHandler('notifications/resources/updated', (notification) => { seen.updated.push(notification.params.uri) })
  return seen
}

t.test('Streamable HTTP: listen, receive changes, close one stream, see the shutdown as graceful', async (t) => {
  const { app, base } = await listeningCatalogApp(t)
  const client = new Client({ name: 'tap-v2', version: '1.0.0' }, PINNED)
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)))
  t.teardown(async () => { await client.close() })
  t.equal(client.getNegotiatedProtocolVersion(), '2026-07-28', 'pinned: no fallback')
  const seen = watch(client)

  const subscription = await client.listen({ toolsListChanged: true, resourceSubscriptions: ['docs://readme', 'docs://missing'] })
  t.same(subscription.honoredFilter, { toolsListChanged: true, resourceSubscriptions: ['docs://readme'] })
  const prompts = await client.listen({ promptsListChanged: true })
  t.equal(openStreams(app), 2)

  app.mcp.tool({ name: 'added_later' }, async () => ({ content: [] }))
  app.mcp.notifyResourceUpdated('docs://readme')
  app.mcp.prompt({ name: 'p_later' }, async () => ({ messages: [] }))
  await until(() => seen.tools === 1 && seen.updated.length === 1 && seen.prompts === 1, { timeoutMs: 10000, what: 'the three changes' })
  t.same(seen.updated, ['docs://readme'])

  await prompts.close()
  t.equal(await prompts.closed, 'local')
  await until(() => openStreams(app) === 1, { timeoutMs: 10000, what: 'the closed stream to be freed on the server' })
  const tools = await client.listTools()
  t.ok(tools.tools.some((tool) => tool.name === 'added_later'), 'ordinary requests go on beside the stream')

  await app.close()
  t.equal(await subscription.closed, 'graceful', 'the complete result tells the client the end was deliberate')
})

t.test('stdio: listen, receive changes, then the server stops: graceful', async (t) => {
  const transport = new InPlaceStdioTransport({
    command: process.execPath,
    args: [...process.execArgv, fixture('stdio-listen-server.ts')],
    stderr: 'pipe'
  })
  const client = new Client({ name: 'tap-v2', version: '1.0.0' }, PINNED)
  await client.connect(transport)
  t.teardown(async () => { await client.close() })
  const seen = watch(client)
  const subscription = await client.listen({ toolsListChanged: true, resourceSubscriptions: ['notes://today'] })
  t.same(subscription.honoredFilter, { toolsListChanged: true, resourceSubscriptions: ['notes://today'] })

  const touched = await client.callTool({ name: 'touch', arguments: {} })
  t.same(touched.content, [{ type: 'text', text: '1' }])
  await client.callTool({ name: 'add_tool', arguments: {} })
  await until(() => seen.tools === 1 && seen.updated.length === 1, { timeoutMs: 10000, what: 'both changes' })

  const second = await client.listen({ resourceSubscriptions: ['notes://today'] })
  t.same((await client.callTool({ name: 'touch', arguments: {} })).content, [{ type: 'text', text: '2' }], 'two streams listen')
  await second.close()
  t.equal(await second.closed, 'local')
  // The client's notifications/cancelled reached the server before this call: one stream is left.
  t.same((await client.callTool({ name: 'touch', arguments: {} })).content, [{ type: 'text', text: '1' }])

  await client.callTool({ name: 'stop_server', arguments: {} })
  t.equal(await subscription.closed, 'graceful')
})
