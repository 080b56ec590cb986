// subscriptions/listen over Streamable HTTP, read off a real socket: the POST answered as an event
// stream that stays open, the acknowledgement first, subscription ids, changes reaching 2025 sessions
// and listen streams alike, the graceful end on shutdown, disconnects freeing streams, the bounds
// (per principal, overall, slow consumer) and bad filters.
import { connect } from 'node:net'
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { BOTH, messageOf, openSession, raw, type RawReply } from '../helpers/streamable-raw.js'
import { headersFor, modern } from '../helpers/modern.js'
import { catalogApp, listeningCatalogApp } from '../helpers/serve.js'
import { until } from '../helpers/wait.js'

const SUB = 'io.modelcontextprotocol/subscriptionId'
const KEY_A = 'listen-key-aaaaaaaaaaaaaaaa'
const KEY_B = 'listen-key-bbbbbbbbbbbbbbbb'

function listenBody (id: string | number, notifications: unknown): Record<string, unknown> {
  return modern(id, 'subscriptions/listen', { notifications })
}

async function listen (base: string, id: string | number, notifications: unknown, headers: Record<string, string> = {}): Promise<RawReply> {
  const body = listenBody(id, notifications)
  return await raw(`${base}/mcp`, 'POST', { ...headersFor(body), ...headers }, body)
}

/** The listen hub's size, read the way an operator would not: only to prove a slot was freed. */
const openStreams = (app: FastifyInstance): number => (app.mcp as unknown as { listen: { size: number } }).listen.size

t.test('a listen stream: acknowledgement first, then the changes it asked for, each with its subscription id', async (t) => {
  const { app, base } = await listeningCatalogApp(t)
  const stream = await listen(base, 'L1', { toolsListChanged: true, resourceSubscriptions: ['docs://readme', 'docs://nothing'] })
  t.equal(stream.status, 200)
  t.match(stream.headers['content-type'], /^text\/event-stream/)
  t.equal(stream.headers['x-accel-buffering'], 'no')
  t.notOk(stream.headers['mcp-session-id'], 'no session')
  const ack = await stream.next()
  t.notOk(ack.id, 'no event ids: nothing to resume in this revision')
  t.same(messageOf(ack), {
    jsonrpc: '2.0',
    method: 'notifications/subscriptions/acknowledged',
    params: { notifications: { toolsListChanged: true, resourceSubscriptions: ['docs://readme'] }, _meta: { [SUB]: 'L1' } }
  })

  app.mcp.tool({ name: 'fresh' }, async () => ({ content: [] }))
  t.same(messageOf(await stream.next()), { jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { [SUB]: 'L1' } } })
  app.mcp.prompt({ name: 'not_asked_for' }, async () => ({ messages: [] }))
  t.equal(app.mcp.notifyResourceUpdated('docs://readme'), 1)
  t.same(messageOf(await stream.next()), {
    jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'docs://readme', _meta: { [SUB]: 'L1' } }
  }, 'the prompt change in between was not delivered')
  stream.destroy()
})

t.test('one change reaches a 2025 session and a 2026 listen stream on the same endpoint', async (t) => {
  const { app, base } = await listeningCatalogApp(t)
  const sessionId = await openSession(`${base}/mcp`)
  await raw(`${base}/mcp`, 'POST', { ...BOTH, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
    { jsonrpc: '2.0', id: 1, method: 'resources/subscribe', params: { uri: 'docs://readme' } }).then(async (reply) => await reply.text())
  const legacy = await raw(`${base}/mcp`, 'GET', { accept: 'text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' })
  await legacy.next() // priming event
  const stream = await listen(base, 7, { toolsListChanged: true, resourceSubscriptions: ['docs://readme'] })
  await stream.next()

  app.mcp.tool({ name: 'both_hear_this' }, async () => ({ content: [] }))
  t.same(messageOf(await legacy.next()), { jsonrpc: '2.0', method: 'notifications/tools/list_changed' }, '2025: unsolicited, no subscription id')
  t.same(messageOf(await stream.next()).params, { _meta: { [SUB]: 7 } })
  t.equal(app.mcp.notifyResourceUpdated('docs://readme'), 2, 'one session, one stream')
  t.same(messageOf(await legacy.next()).params, { uri: 'docs://readme' })
  t.same(messageOf(await stream.next()).params, { uri: 'docs://readme', _meta: { [SUB]: 7 } })
  t.equal(app.mcp.broadcast({ method: 'notifications/message', params: { level: 'info', data: 'to sessions only' } }), 1)
  t.equal(messageOf(await legacy.next()).method, 'notifications/message')
  t.equal(app.mcp.broadcast({ method: 'notifications/tools/list_changed' }), 2)
  t.equal(messageOf(await stream.next()).method, 'notifications/tools/list_changed', 'the log never reached the listen stream')
  legacy.destroy()
  stream.destroy()
})

t.test('shutdown ends every listen stream with the complete result, then the stream', async (t) => {
  const { app, base } = await listeningCatalogApp(t)
  const streams = await Promise.all([1, 2, 3].map(async (id) => await listen(base, id, { promptsListChanged: true })))
  for (const stream of streams) await stream.next()
  await app.close()
  for (const [index, stream] of streams.entries()) {
    const rest = (await stream.rest()).map(messageOf)
    t.same(rest, [{ jsonrpc: '2.0', id: index + 1, result: { resultType: 'complete', _meta: { [SUB]: index + 1, 'io.modelcontextprotocol/serverInfo': { name: 'catalog', version: '1.0.0' } } } }])
  }
})

t.test('closing the stream frees it; the overall bound refuses more until then', async (t) => {
  const { app, base } = await listeningCatalogApp(t, { listen: { maxStreams: 1 } })
  const first = await listen(base, 'a', { toolsListChanged: true })
  await first.next()
  const refused = await listen(base, 'b', { toolsListChanged: true })
  t.equal(refused.status, 200)
  t.match(JSON.parse(await refused.text()), { jsonrpc: '2.0', id: 'b', error: { code: -32603, data: { limit: 'listen.maxStreams', max: 1 } } })
  first.destroy()
  await until(() => openStreams(app) === 0, { timeoutMs: 5000, what: 'the closed stream to be freed' })
  const again = await listen(base, 'c', { toolsListChanged: true })
  t.equal(messageOf(await again.next()).method, 'notifications/subscriptions/acknowledged', 'the freed slot is usable')
  again.destroy()
})

t.test('per principal: one caller cannot take every stream; another still can', async (t) => {
  const { app, base } = await listeningCatalogApp(t, { auth: { type: 'apikey', options: { keys: [KEY_A, KEY_B] } }, listen: { maxStreamsPerPrincipal: 2 } })
  const a1 = await listen(base, 1, { toolsListChanged: true }, { 'x-api-key': KEY_A })
  const a2 = await listen(base, 2, { toolsListChanged: true }, { 'x-api-key': KEY_A })
  await a1.next()
  await a2.next()
  const a3 = await listen(base, 3, { toolsListChanged: true }, { 'x-api-key': KEY_A })
  t.match(JSON.parse(await a3.text()).error, { code: -32603, message: /at most 2 per principal/ })
  const b1 = await listen(base, 1, { toolsListChanged: true }, { 'x-api-key': KEY_B })
  t.equal(messageOf(await b1.next()).method, 'notifications/subscriptions/acknowledged')
  const anonymous = await listen(base, 9, { toolsListChanged: true })
  t.equal(anonymous.status, 401, 'auth still guards the endpoint')
  await anonymous.text()
  t.equal(openStreams(app), 3)
  for (const stream of [a1, a2, b1]) stream.destroy()
})

t.test('bad filters: -32602 with the request id, nothing held open', async (t) => {
  const app = await catalogApp(t, { maxUriBytes: 32, listen: { maxResourceSubscriptions: 1 } })
  const cases: Array<[unknown, RegExp]> = [
    [undefined, /params\.notifications is required/],
    [[true], /must be an object/],
    [{ toolsListChanged: 'true' }, /toolsListChanged must be a boolean/],
    [{ resourceSubscriptions: ['docs://readme', 'docs://other'] }, /at most 1/],
    [{ resourceSubscriptions: [`docs://${'x'.repeat(40)}`] }, /longer than 32 bytes/],
    [{ resourceSubscriptions: [''] }, /must be an absolute URI/]
  ]
  for (const [index, [notifications, message]] of cases.entries()) {
    const body = notifications === undefined ? modern(index, 'subscriptions/listen') : listenBody(index, notifications)
    const reply = await app.inject({ method: 'POST', url: '/mcp', headers: headersFor(body), payload: body })
    t.match(reply.json(), { jsonrpc: '2.0', id: index, error: { code: -32602, message } }, JSON.stringify(notifications))
  }
  t.equal(openStreams(app), 0)
  const fine = await app.inject({ method: 'POST', url: '/mcp', headers: headersFor(listenBody('x', { resourceSubscriptions: ['docs://unknown'] })), payload: listenBody('x', { resourceSubscriptions: ['docs://unknown'] }) })
  t.equal(fine.statusCode, 200, 'a filter honouring nothing is acknowledged and ended at once')
  t.match(fine.body, /notifications\/subscriptions\/acknowledged[\s\S]*"resultType":"complete"/)
})

t.test('a client that takes no event stream cannot listen: 406', async (t) => {
  const app = await catalogApp(t)
  const body = listenBody(1, { toolsListChanged: true })
  const reply = await app.inject({ method: 'POST', url: '/mcp', headers: headersFor(body, { accept: 'application/json' }), payload: body })
  t.equal(reply.statusCode, 406)
  t.equal(openStreams(app), 0)
})

t.test('a 2025 session cannot call subscriptions/listen', async (t) => {
  const { base } = await listeningCatalogApp(t)
  const sessionId = await openSession(`${base}/mcp`)
  const reply = await raw(`${base}/mcp`, 'POST', { ...BOTH, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
    { jsonrpc: '2.0', id: 5, method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true } } })
  t.match(JSON.parse(await reply.text()), { id: 5, error: { code: -32601 } })
})

t.test('a client that stops reading is cut off and its stream freed', async (t) => {
  const { app, base } = await listeningCatalogApp(t, { maxQueuedBytes: 1024, maxUriBytes: 4096, listen: { maxStreams: 1 } })
  const uri = `docs://${'x'.repeat(4000)}`
  app.mcp.resource({ uri, name: 'big' }, async () => ({ contents: [{ uri, text: '' }] }))
  // A socket that sends the request and then never reads: the kernel buffers fill, then Node's.
  const { port } = new URL(base)
  const socket = connect(Number(port), '127.0.0.1')
  t.teardown(() => socket.destroy())
  const body = JSON.stringify(listenBody('slow', { resourceSubscriptions: [uri] }))
  const headers = Object.entries(headersFor(listenBody('slow', {}))).map(([name, value]) => `${name}: ${value}`).join('\r\n')
  socket.write(`POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\n${headers}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`)
  socket.pause()
  await until(() => openStreams(app) === 1, { timeoutMs: 5000, what: 'the stream to open' })
  for (let i = 0; i < 20000 && openStreams(app) === 1; i++) {
    app.mcp.notifyResourceUpdated(uri)
    if (i % 100 === 99) await new Promise((resolve) => setImmediate(resolve))
  }
  t.equal(openStreams(app), 0, 'cut off once more than maxQueuedBytes waited')
  const next = await listen(base, 'next', { toolsListChanged: true })
  t.equal(messageOf(await next.next()).method, 'notifications/subscriptions/acknowledged', 'its slot is free again')
  next.destroy()
})

t.test('many listeners over HTTP each get one change once', async (t) => {
  // One address without auth is one client: its share of streams is raised to hold them all.
  const { app, base } = await listeningCatalogApp(t, { listen: { maxStreamsPerPrincipal: 40 } })
  const streams = await Promise.all(Array.from({ length: 40 }, async (_, i) => await listen(base, i, { toolsListChanged: true })))
  for (const stream of streams) await stream.next()
  t.equal(app.mcp.broadcast({ method: 'notifications/tools/list_changed' }), 40)
  const seen = await Promise.all(streams.map(async (stream) => messageOf(await stream.next()).params._meta[SUB]))
  t.same(seen, Array.from({ length: 40 }, (_, i) => i))
  for (const stream of streams) stream.destroy()
})
