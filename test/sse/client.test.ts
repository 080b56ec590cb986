import t from 'tap'
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { connectSse, connectStdio } from '../helpers/clients.js'
import { runCatalogTable } from '../helpers/catalog-table.js'
import { probes } from '../fixtures/catalog.js'
import { listeningCatalogApp } from '../helpers/serve.js'
import { until } from '../helpers/wait.js'

t.test('the official SDK client passes the catalog table over SSE, as over stdio', async (t) => {
  const { app, base } = await listeningCatalogApp(t)
  const { client } = await connectSse(`${base}/sse`)
  t.teardown(() => client.close())
  t.equal(app.mcp.sessionCount, 1, 'one session while connected')
  const overSse = await t.test('catalog over SSE', async (t) => await runCatalogTable(t, client))

  const stdio = await connectStdio('stdio-server.ts')
  t.teardown(() => stdio.client.close())
  const overStdio = await t.test('catalog over stdio', async (t) => await runCatalogTable(t, stdio.client))
  t.same(overSse, overStdio, 'the same observations on both transports')
})

t.test('several clients at once, each on its own session', async (t) => {
  const { app, base } = await listeningCatalogApp(t)
  const clients = await Promise.all(Array.from({ length: 5 }, async () => (await connectSse(`${base}/sse`)).client))
  t.teardown(() => Promise.all(clients.map(async (client) => await client.close())))
  t.equal(app.mcp.sessionCount, 5)
  const sums = await Promise.all(clients.map(async (client, i) => await client.callTool({ name: 'add', arguments: { a: i, b: 100 } })))
  t.same(sums.map((sum) => (sum.content as Array<{ text: string }>)[0]?.text), ['100', '101', '102', '103', '104'], 'every client got its own answer')
})

t.test('broadcast reaches every connected session', async (t) => {
  const { app, base } = await listeningCatalogApp(t)
  const received: unknown[][] = [[], [], []]
  const clients = await Promise.all(received.map(async (inbox) => {
    const { client } = await connectSse(`${base}/sse`)
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => { inbox.push(notification.params) })
    return client
  }))
  t.teardown(() => Promise.all(clients.map(async (client) => await client.close())))
  const reached = app.mcp.broadcast({ method: 'notifications/message', params: { level: 'info', data: { hello: 'everyone' } } })
  t.equal(reached, 3, 'broadcast counts three sessions')
  await until(() => received.every((inbox) => inbox.length === 1), { timeoutMs: 5000, what: 'the broadcast on every client' })
  t.same(received, [[{ level: 'info', data: { hello: 'everyone' } }], [{ level: 'info', data: { hello: 'everyone' } }], [{ level: 'info', data: { hello: 'everyone' } }]])
})

t.test('a client disconnecting mid-call aborts the handler and ends the session', async (t) => {
  const { app, base } = await listeningCatalogApp(t)
  const { client } = await connectSse(`${base}/sse`)
  let started!: () => void
  const progressed = new Promise<void>((resolve) => { started = resolve })
  const call = client.callTool({ name: 'wait_for_abort', arguments: { tag: 'sse-disconnect' } }, undefined, { onprogress: () => started() })
  call.catch(() => {})
  await progressed
  t.equal(app.mcp.sessionCount, 1)
  await client.close()
  await until(() => probes.aborted.includes('sse-disconnect'), { timeoutMs: 5000, what: 'the handler to see ctx.signal abort' })
  t.pass('the handler saw ctx.signal abort')
  await until(() => app.mcp.sessionCount === 0, { timeoutMs: 5000, what: 'the session to end' })
  t.equal(app.mcp.sessionCount, 0, 'the session is gone')
})
