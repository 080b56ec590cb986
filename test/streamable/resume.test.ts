import { request as httpRequest } from 'node:http'
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { MemoryEventStore } from '../../src/scale/memory/event-store.js'
import { connectStreamable } from '../helpers/clients.js'
import { probes } from '../fixtures/catalog.js'
import { BOTH, messageOf, openSession, raw, type RawReply, type SseEvent } from '../helpers/streamable-raw.js'
import { listeningCatalogApp } from '../helpers/serve.js'
import { sleep, until } from '../helpers/wait.js'

const call = (id: number, name: string, args: Record<string, unknown> = {}): Record<string, unknown> =>
  ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, _meta: { progressToken: `p${id}` } } })

/** Tools whose pace the test controls: `gated` logs twice, waits for `open()`, logs twice more and answers. */
function addGatedTools (app: FastifyInstance): { open: () => void } {
  let open!: () => void
  const gate = new Promise<void>((resolve) => { open = resolve })
  app.mcp.tool({ name: 'gated', description: 'Logs, waits for the test, logs, answers' }, async (_args, ctx) => {
    ctx.log('info', 'one')
    ctx.log('info', 'two')
    await gate
    ctx.log('info', 'three')
    ctx.log('info', 'four')
    return { content: [{ type: 'text', text: 'gated done' }] }
  })
  app.mcp.tool({ name: 'closer', description: 'Closes its own stream mid-call' }, async (_args, ctx) => {
    ctx.progress(1, 3)
    const closed = ctx.closeStream(20)
    await sleep(30)
    ctx.progress(2, 3)
    await sleep(30)
    ctx.progress(3, 3)
    return { content: [{ type: 'text', text: `closed: ${String(closed)}` }] }
  })
  return { open }
}

/** What a list of events says: log data, or `result:<text>`. */
function said (events: SseEvent[]): string[] {
  return events.map((event) => {
    const message = messageOf(event)
    return message.method === 'notifications/message' ? message.params.data : `result:${String(message.result?.content?.[0]?.text)}`
  })
}

async function resume (url: string, session: string, lastEventId: string): Promise<RawReply> {
  return await raw(url, 'GET', { accept: 'text/event-stream', 'mcp-session-id': session, 'last-event-id': lastEventId })
}

t.test('the memory event store: per session, per stream, bounded', async (t) => {
  const store = new MemoryEventStore(3)
  store.append('a', '1', { id: '1_1', data: '' })
  store.append('a', '1', { id: '1_2', data: 'x' })
  store.append('a', '2', { id: '2_3', data: 'other stream' })
  store.append('a', '1', { id: '1_4', data: 'y' })
  t.same(store.replayAfter('a', '1_2'), { streamId: '1', events: [{ id: '1_4', data: 'y' }] }, 'only the same stream, after the id')
  t.same(store.replayAfter('a', '2_3'), { streamId: '2', events: [] })
  t.equal(store.replayAfter('a', '1_1'), undefined, 'the oldest event was evicted')
  t.equal(store.replayAfter('b', '1_2'), undefined, 'another session does not share ids')
  store.append('b', '1', { id: '1_1', data: 'b' })
  t.same(store.replayAfter('b', '1_1'), { streamId: '1', events: [] }, 'b holds its own events beside a')
  store.deleteSession('a')
  t.equal(store.replayAfter('a', '1_4'), undefined, 'a deleted session replays nothing')
  t.same(store.replayAfter('b', '1_1'), { streamId: '1', events: [] }, 'and the other session keeps its events')
})

t.test('a dropped POST stream resumes with Last-Event-ID: nothing lost, nothing twice', async (t) => {
  const { app, base } = await listeningCatalogApp(t)
  const gate = addGatedTools(app)
  const url = `${base}/mcp`
  const session = await openSession(url)
  const post = await raw(url, 'POST', { ...BOTH, 'mcp-session-id': session }, call(1, 'gated'))
  const priming = await post.next()
  t.match(priming, { id: /^\d+_\d+$/, retry: 1000, data: '' }, 'primed')
  const first = [await post.next(), await post.next()]
  t.same(said(first), ['one', 'two'])
  post.destroy()
  gate.open()
  await sleep(50)
  t.equal(app.mcp.sessionCount, 1, 'a dropped stream does not end the session')

  const resumed = await resume(url, session, first[1]?.id as string)
  t.equal(resumed.status, 200)
  t.match(resumed.headers['content-type'], /^text\/event-stream/)
  const rest = await resumed.rest()
  t.same(said(rest), ['three', 'four', 'result:gated done'], 'exactly what was missed, in order, then the stream ends')
  const ids = [priming, ...first, ...rest].map((event) => event.id)
  t.equal(new Set(ids).size, ids.length, 'no id twice')

  const fromPriming = await resume(url, session, priming.id as string)
  t.same(said(await fromPriming.rest()), ['one', 'two', 'three', 'four', 'result:gated done'], 'from the priming event: everything')
  const fromEnd = await resume(url, session, rest[2]?.id as string)
  t.same(await fromEnd.rest(), [], 'from the last event: nothing, and the stream ends')
})

t.test('resuming while the call is still running: replay, then live events until the answer', async (t) => {
  const { app, base } = await listeningCatalogApp(t)
  const gate = addGatedTools(app)
  const url = `${base}/mcp`
  const session = await openSession(url)
  const post = await raw(url, 'POST', { ...BOTH, 'mcp-session-id': session }, call(1, 'gated'))
  const priming = await post.next()
  t.same(said([await post.next(), await post.next()]), ['one', 'two'])

  // The old connection is still up: the resuming GET takes over from it.
  const resumed = await resume(url, session, priming.id as string)
  t.same(said([await resumed.next(), await resumed.next()]), ['one', 'two'], 'the replay')
  t.same(await post.rest(), [], 'the replaced POST connection ends')
  gate.open()
  t.same(said(await resumed.rest()), ['three', 'four', 'result:gated done'], 'then live events and the answer')
})

t.test('ctx.closeStream(): the SDK client reconnects and gets every progress and the answer', async (t) => {
  const { app, base } = await listeningCatalogApp(t)
  addGatedTools(app)
  const { client } = await connectStreamable(`${base}/mcp`)
  t.teardown(() => client.close())
  const progress: number[] = []
  const result = await client.callTool({ name: 'closer', arguments: {} }, undefined, { onprogress: (p) => { progress.push(p.progress) } })
  t.same(result.content, [{ type: 'text', text: 'closed: true' }], 'the stream was closed mid-call, the answer still arrived')
  t.same(progress, [1, 2, 3], 'every progress notification, once')
})

t.test('the standalone GET stream resumes too, and stays open', async (t) => {
  const { app, base } = await listeningCatalogApp(t)
  const url = `${base}/mcp`
  const session = await openSession(url)
  const say = (data: string): number => app.mcp.broadcast({ method: 'notifications/message', params: { level: 'info', data } })
  const get = await raw(url, 'GET', { accept: 'text/event-stream', 'mcp-session-id': session })
  t.match(await get.next(), { id: '0_1', data: '' }, 'primed')
  say('a')
  const a = await get.next()
  t.same(said([a]), ['a'])
  get.destroy()
  await sleep(50)
  say('b')
  say('c')
  const resumed = await resume(url, session, a.id as string)
  t.teardown(() => resumed.destroy())
  t.same(said([await resumed.next(), await resumed.next()]), ['b', 'c'], 'what was missed')
  say('d')
  t.same(said([await resumed.next()]), ['d'], 'then live messages on the same stream')
})

t.test('a Last-Event-ID that cannot be replayed is a 400', async (t) => {
  const { app, base } = await listeningCatalogApp(t, { eventStoreSize: 2 })
  addGatedTools(app)
  const url = `${base}/mcp`
  const session = await openSession(url)
  const other = await openSession(url)
  // A client that takes only an event stream: even a simple call is answered (and recorded) as events.
  const SSE = { ...BOTH, accept: 'text/event-stream', 'mcp-session-id': session }
  const post = await raw(url, 'POST', SSE, call(1, 'add', { a: 1, b: 2 }))
  const events = await post.rest()
  t.equal(events.length, 2, 'priming and the answer')
  for (const [lastEventId, why] of [['bogus', 'malformed'], ['99_1', 'unknown'], ['x'.repeat(100), 'too long']]) {
    const reply = await resume(url, session, lastEventId as string)
    t.equal(reply.status, 400, `${why}: 400`)
    t.match(JSON.parse(await reply.text()), { id: null, error: { code: -32600, message: /Last-Event-ID/ } })
  }
  const foreign = await resume(url, other, events[1]?.id as string)
  t.equal(foreign.status, 400, "another session's event: 400")
  await foreign.text()
  const later = await raw(url, 'POST', SSE, call(2, 'add', { a: 1, b: 2 }))
  await later.rest()
  const evicted = await resume(url, session, events[0]?.id as string)
  t.equal(evicted.status, 400, 'evicted from a full store: 400')
  await evicted.text()
})

t.test('an older client gets no priming event but may still resume from any event id', async (t) => {
  const { app, base } = await listeningCatalogApp(t)
  const gate = addGatedTools(app)
  const url = `${base}/mcp`
  const session = await openSession(url, '2025-06-18')
  const post = await raw(url, 'POST', { ...BOTH, 'mcp-session-id': session }, call(1, 'gated'))
  const one = await post.next()
  t.same(said([one]), ['one'], 'the first event is a message, not a priming event')
  t.match(one.id, /^\d+_\d+$/, 'with an id')
  post.destroy()
  gate.open()
  const resumed = await resume(url, session, one.id as string)
  t.same(said(await resumed.rest()), ['two', 'three', 'four', 'result:gated done'], 'the handler went on and everything after it arrives')
})

t.test('without resumption, a dropped stream cancels its handler', async (t) => {
  const { app, base } = await listeningCatalogApp(t, { eventStoreSize: 0 })
  addGatedTools(app)
  const url = `${base}/mcp`
  const session = await openSession(url)
  const post = await raw(url, 'POST', { ...BOTH, 'mcp-session-id': session }, call(1, 'wait_for_abort', { tag: 'no-store' }))
  const first = await post.next()
  t.equal(first.id, undefined, 'no store: no priming event, no event ids at all')
  t.match(messageOf(first), { method: 'notifications/progress' })
  post.destroy()
  await until(() => probes.aborted.includes('no-store'), { timeoutMs: 5000, what: 'the handler to abort' })
  t.pass('nobody could read the answer, so the handler was cancelled')

  // A JSON answer has no stream to resume at all, store or not.
  const json = await listeningCatalogApp(t)
  let started!: () => void
  const running = new Promise<void>((resolve) => { started = resolve })
  const aborted = new Promise<void>((resolve) => {
    json.app.mcp.tool({ name: 'json_wait', description: 'Waits until aborted' }, async (_args, ctx) => {
      started()
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }))
      resolve()
      return { content: [] }
    })
  })
  const jsonUrl = `${json.base}/mcp`
  const jsonSession = await openSession(jsonUrl)
  const request = httpRequest(jsonUrl, { method: 'POST', headers: { ...BOTH, accept: 'application/json', 'mcp-session-id': jsonSession } })
  request.on('error', () => {})
  request.end(JSON.stringify(call(1, 'json_wait')))
  await running
  request.destroy()
  await aborted
  t.pass('json: the handler was cancelled when its connection dropped')

  const { client } = await connectStreamable(url)
  t.teardown(() => client.close())
  t.same((await client.callTool({ name: 'closer', arguments: {} })).content, [{ type: 'text', text: 'closed: false' }], 'without a store ctx.closeStream() refuses')
})

t.test('DELETE ends every stream of the session and aborts its handlers', async (t) => {
  const { app, base } = await listeningCatalogApp(t)
  const url = `${base}/mcp`
  const session = await openSession(url)
  const get = await raw(url, 'GET', { accept: 'text/event-stream', 'mcp-session-id': session })
  await get.next()
  const post = await raw(url, 'POST', { ...BOTH, 'mcp-session-id': session }, call(1, 'wait_for_abort', { tag: 'deleted' }))
  await post.next()
  await post.next()
  const deleted = await raw(url, 'DELETE', { 'mcp-session-id': session })
  t.equal(deleted.status, 204)
  t.same(await get.rest(), [], 'the GET stream ends')
  t.same(await post.rest(), [], 'the POST stream ends, unanswered')
  await until(() => probes.aborted.includes('deleted'), { timeoutMs: 5000, what: 'the handler to abort' })
  t.equal(app.mcp.sessionCount, 0)
})
