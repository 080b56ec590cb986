import t from 'tap'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js'
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { connectSse, connectStdio, connectStreamable } from '../helpers/clients.js'
import { runCatalogTable } from '../helpers/catalog-table.js'
import { probes } from '../fixtures/catalog.js'
import { listeningCatalogApp } from '../helpers/serve.js'
import { until } from '../helpers/wait.js'

t.test('the official SDK client passes the catalog table over Streamable HTTP, as over SSE and stdio', async (t) => {
  const { app, base } = await listeningCatalogApp(t)
  const { client, transport } = await connectStreamable(`${base}/mcp`)
  t.teardown(() => client.close())
  t.match(transport.sessionId, /^[0-9a-f-]{36}$/, 'the client holds a session id')
  t.equal(app.mcp.sessionCount, 1)
  const overStreamable = await t.test('catalog over Streamable HTTP', async (t) => await runCatalogTable(t, client))

  const sse = await connectSse(`${base}/sse`)
  t.teardown(() => sse.client.close())
  const overSse = await t.test('catalog over SSE', async (t) => await runCatalogTable(t, sse.client))
  const stdio = await connectStdio('stdio-server.ts')
  t.teardown(() => stdio.client.close())
  const overStdio = await t.test('catalog over stdio', async (t) => await runCatalogTable(t, stdio.client))
  t.same(overStreamable, overSse, 'the same observations as over SSE')
  t.same(overStreamable, overStdio, 'and as over stdio')
})

t.test('server messages reach clients on their standalone GET stream', async (t) => {
  const { app, base } = await listeningCatalogApp(t)
  const inboxes: unknown[][] = [[], [], []]
  const probed = new Set<unknown>()
  const clients = await Promise.all(inboxes.map(async (inbox) => {
    const { client } = await connectStreamable(`${base}/mcp`)
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      if (notification.params.data === 'probe') probed.add(client)
      else inbox.push(notification.params)
    })
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => { inbox.push('tools changed') })
    return client
  }))
  t.teardown(() => Promise.all(clients.map(async (client) => await client.close())))
  // The client opens its GET stream after notifications/initialized; wait until every one is there.
  await until(() => app.mcp.broadcast({ method: 'notifications/message', params: { level: 'debug', data: 'probe' } }) === 3 &&
    probed.size === 3, { timeoutMs: 5000, what: 'every GET stream' })

  t.equal(app.mcp.broadcast({ method: 'notifications/message', params: { level: 'info', data: { hello: 'everyone' } } }), 3)
  app.mcp.tool({ name: 'late', description: 'registered while clients are connected' }, async () => ({ content: [{ type: 'text', text: 'late' }] }))
  await until(() => inboxes.every((inbox) => inbox.length === 2), { timeoutMs: 5000, what: 'the broadcast and list_changed on every client' })
  t.same(inboxes, Array.from({ length: 3 }, () => [{ level: 'info', data: { hello: 'everyone' } }, 'tools changed']), 'in order, once each')
  const tools = await clients[0]?.listTools()
  t.ok(tools?.tools.some((tool) => tool.name === 'late'), 'the new tool is listed')
})

t.test('resource subscriptions notify over the GET stream', async (t) => {
  const { app, base } = await listeningCatalogApp(t)
  const { client } = await connectStreamable(`${base}/mcp`)
  t.teardown(() => client.close())
  const updated: string[] = []
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => { updated.push(notification.params.uri) })
  t.same(await client.subscribeResource({ uri: 'docs://readme' }), {})
  await until(() => app.mcp.notifyResourceUpdated('docs://readme') === 1 && updated.length > 0, { timeoutMs: 5000, what: 'the update' })
  t.equal(updated[0], 'docs://readme')
  t.same(await client.unsubscribeResource({ uri: 'docs://readme' }), {})
  t.equal(app.mcp.notifyResourceUpdated('docs://readme'), 0, 'no longer subscribed')
})

t.test('cancelling a request aborts its handler; terminateSession ends the session', async (t) => {
  const { app, base } = await listeningCatalogApp(t)
  const { client, transport } = await connectStreamable(`${base}/mcp`)
  t.teardown(() => client.close())
  const controller = new AbortController()
  let started!: () => void
  const progressed = new Promise<void>((resolve) => { started = resolve })
  const call = client.callTool({ name: 'wait_for_abort', arguments: { tag: 'streamable-cancel' } }, undefined, { signal: controller.signal, onprogress: () => started() })
  call.catch(() => {})
  await progressed
  controller.abort('changed my mind')
  await t.rejects(call, 'the call rejects on the client')
  await until(() => probes.aborted.includes('streamable-cancel'), { timeoutMs: 5000, what: 'the handler to see ctx.signal abort' })
  t.pass('the handler saw ctx.signal abort')

  t.equal(app.mcp.sessionCount, 1)
  await transport.terminateSession()
  t.equal(app.mcp.sessionCount, 0, 'DELETE ended the session')
  t.equal(transport.sessionId, undefined, 'the client forgot its id')
})

/**
 * The SDK's documented backwards-compatible client: Streamable HTTP first, and
 * on a 4xx from it the legacy SSE transport at its own URL.
 */
async function connectWithFallback (base: string): Promise<{ client: Client, kind: 'streamable' | 'sse' }> {
  const info = { name: 'fallback-client', version: '1.0.0' }
  const client = new Client(info)
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)))
    return { client, kind: 'streamable' }
  } catch (error) {
    if (!(error instanceof StreamableHTTPError) || error.code === undefined || error.code < 400 || error.code >= 500) throw error
    const legacy = new Client(info)
    await legacy.connect(new SSEClientTransport(new URL(`${base}/sse`)))
    return { client: legacy, kind: 'sse' }
  }
}

t.test('an old-style client falls back to legacy SSE when Streamable HTTP is off', async (t) => {
  const { app, base } = await listeningCatalogApp(t, { streamableEndpoint: false })
  const { client, kind } = await connectWithFallback(base)
  t.teardown(() => client.close())
  t.equal(kind, 'sse', 'the POST to /mcp got a 4xx, so the client fell back')
  t.same(await client.callTool({ name: 'add', arguments: { a: 20, b: 22 } }), { content: [{ type: 'text', text: '42' }] })
  t.equal(app.mcp.sessionCount, 1)
})

t.test('old and new clients side by side on one listener', async (t) => {
  const { app, base } = await listeningCatalogApp(t)
  const modern = await connectWithFallback(base)
  t.teardown(() => modern.client.close())
  t.equal(modern.kind, 'streamable', 'a modern client stays on Streamable HTTP')
  const legacy = await connectSse(`${base}/sse`)
  t.teardown(() => legacy.client.close())
  t.equal(app.mcp.sessionCount, 2)
  const [a, b] = await Promise.all([
    modern.client.callTool({ name: 'add', arguments: { a: 1, b: 2 } }),
    legacy.client.callTool({ name: 'add', arguments: { a: 3, b: 4 } })
  ])
  t.same([a, b], [{ content: [{ type: 'text', text: '3' }] }, { content: [{ type: 'text', text: '7' }] }], 'both are served')
  const heard: string[] = []
  modern.client.setNotificationHandler(LoggingMessageNotificationSchema, () => { heard.push('modern') })
  legacy.client.setNotificationHandler(LoggingMessageNotificationSchema, () => { heard.push('legacy') })
  // Broadcast until both heard one: the modern client opens its GET stream a moment after connecting.
  await until(() => {
    app.mcp.broadcast({ method: 'notifications/message', params: { level: 'info', data: 'both' } })
    return heard.includes('modern') && heard.includes('legacy')
  }, { timeoutMs: 5000, what: 'a broadcast on both transports' })
  t.pass('a broadcast reaches both transports')
})
