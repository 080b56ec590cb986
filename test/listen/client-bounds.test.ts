// Listen streams without auth are bounded per client, its address counted as maxSessionsPerClient
// counts, and each listen request is bounded in bytes (issue 19, item 6): raw sockets from two
// loopback addresses, as two hosts without credentials.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { listeningCatalogApp } from '../helpers/serve.js'
import { messageOf, raw, type RawReply } from '../helpers/streamable-raw.js'
import { headersFor, meta, modern } from '../helpers/modern.js'
import { deadline, until } from '../helpers/wait.js'

const openStreams = (app: FastifyInstance): number => (app.mcp as unknown as { listen: { size: number } }).listen.size

async function listen (base: string, id: number | string, notifications: unknown, from = '127.0.0.1', metaExtra: Record<string, unknown> = {}): Promise<RawReply> {
  const body = modern(id, 'subscriptions/listen', { notifications }, metaExtra)
  return await raw(`${base}/mcp`, 'POST', headersFor(body), body, { localAddress: from })
}

t.test('one address holds listen.maxStreamsPerPrincipal streams (16); another address still listens', async (t) => {
  const { app, base } = await listeningCatalogApp(t)
  const held: RawReply[] = []
  t.teardown(() => { for (const stream of held) stream.destroy() })
  for (let i = 0; i < 16; i++) {
    const stream = await listen(base, i, { toolsListChanged: true })
    held.push(stream)
    t.equal(messageOf(await stream.next()).method, 'notifications/subscriptions/acknowledged')
  }
  const refused = await listen(base, 'over', { toolsListChanged: true })
  // Accepted, it would be a stream that never ends: the deadline makes that a failure, not a hang.
  t.match(JSON.parse(await deadline(refused.text(), 5000, 'the refusal')), {
    id: 'over',
    error: { code: -32603, message: /at most 16 per client address/, data: { limit: 'listen.maxStreamsPerPrincipal', max: 16 } }
  })
  t.equal(openStreams(app), 16, 'the refused listen holds nothing')

  const other = await listen(base, 'other', { toolsListChanged: true }, '127.0.0.2')
  held.push(other)
  t.equal(messageOf(await other.next()).method, 'notifications/subscriptions/acknowledged', 'another host is another client')

  held[0]?.destroy()
  await until(() => openStreams(app) === 16, { what: 'the closed stream to be freed' })
  const again = await listen(base, 'again', { toolsListChanged: true })
  held.push(again)
  t.equal(messageOf(await again.next()).method, 'notifications/subscriptions/acknowledged', 'a closed stream gives its slot back')
})

t.test('a listen request is bounded in bytes (listen.maxRequestBytes): full filters and padded _meta are refused', async (t) => {
  const { app, base } = await listeningCatalogApp(t, { listen: { maxRequestBytes: 16_384 } })
  // Every URI within maxUriBytes (8192) and their number within maxResourceSubscriptions (100):
  // 800 KB a stream would hold for as long as it is open.
  const uris = Array.from({ length: 100 }, (_, i) => `docs://${i}/${'u'.repeat(7900)}`)
  const full = await listen(base, 'full', { resourceSubscriptions: uris })
  t.match(JSON.parse(await full.text()), {
    id: 'full',
    error: { code: -32602, message: /may take 16384 \(listen\.maxRequestBytes\)/, data: { limit: 'listen.maxRequestBytes', max: 16_384 } }
  })
  const padded = await listen(base, 'padded', { toolsListChanged: true }, '127.0.0.1', { 'io.modelcontextprotocol/clientInfo': { name: 'x'.repeat(40_000), version: '1' } })
  t.match(JSON.parse(await padded.text()), { id: 'padded', error: { code: -32602, data: { limit: 'listen.maxRequestBytes' } } })
  t.equal(openStreams(app), 0, 'nothing held open')

  const small = await listen(base, 'small', { toolsListChanged: true, resourceSubscriptions: ['docs://readme'] })
  t.teardown(() => { small.destroy() })
  t.same(messageOf(await small.next()).params.notifications, { toolsListChanged: true, resourceSubscriptions: ['docs://readme'] }, 'a real filter is far below the bound')
  t.ok(JSON.stringify(modern('small', 'subscriptions/listen', { notifications: { toolsListChanged: true }, _meta: meta() })).length < 1024)
})
