// The `eventStore` option: the user's own store of Streamable HTTP events (resumption), on the
// plugin and on MCPServer's HTTP transport. Used as given, asynchronous methods welcome; a failing
// store never costs an answer; bad values are refused with their path; with scale-out it is the
// log every instance resumes from and forgets ended sessions in.
import t from 'tap'
import { MCPServer, Type, type EventReplay, type EventStore, type MCPRegistryApi, type StoredEvent } from '../../src/index.js'
import { resolvePluginOptions } from '../../src/schemas/resolve.js'
import { connectStreamable } from '../helpers/clients.js'
import { MemoryHub } from '../../src/scale/memory/bus.js'
import { clusterStreamable, memoryRig, startCluster, type EngineRig } from '../helpers/scale-cluster.js'
import { listeningCatalogApp } from '../helpers/serve.js'
import { sleep, within } from '../helpers/wait.js'

/** A store as a user writes one (every method asynchronous), recording what it was asked. */
class RecordingStore implements EventStore {
  readonly calls: string[] = []
  failAppends = false
  private readonly sessions = new Map<string, Array<{ streamId: string, event: StoredEvent }>>()

  async append (sessionId: string, streamId: string, event: StoredEvent): Promise<void> {
    await Promise.resolve()
    this.calls.push('append')
    if (this.failAppends) throw new Error('store is down')
    const events = this.sessions.get(sessionId) ?? []
    events.push({ streamId, event })
    this.sessions.set(sessionId, events)
  }

  async replayAfter (sessionId: string, lastEventId: string): Promise<EventReplay | undefined> {
    await Promise.resolve()
    this.calls.push('replayAfter')
    const events = this.sessions.get(sessionId) ?? []
    const at = events.findIndex((entry) => entry.event.id === lastEventId)
    if (at === -1) return undefined
    const streamId = events[at]?.streamId ?? ''
    return { streamId, events: events.slice(at + 1).filter((entry) => entry.streamId === streamId).map((entry) => entry.event) }
  }

  async deleteSession (sessionId: string): Promise<void> {
    await Promise.resolve()
    this.calls.push('deleteSession')
    this.sessions.delete(sessionId)
  }

  has (sessionId: string): boolean {
    return this.sessions.has(sessionId)
  }
}

/** `closer` reports progress, closes its own request stream mid-call (the client resumes), reports more, answers. */
function addCloser (mcp: Pick<MCPRegistryApi, 'tool'>): void {
  mcp.tool({ name: 'closer', description: 'Closes its own stream mid-call', inputSchema: Type.Object({}) }, async (_args, ctx) => {
    ctx.progress(1, 3)
    const closed = ctx.closeStream(20)
    await sleep(30)
    ctx.progress(2, 3)
    await sleep(30)
    ctx.progress(3, 3)
    return { content: [{ type: 'text', text: `closed: ${String(closed)}` }] }
  })
}

const callCloser = async (client: Awaited<ReturnType<typeof connectStreamable>>['client']): Promise<{ text: unknown, progress: number[] }> => {
  const progress: number[] = []
  const result = await client.callTool({ name: 'closer', arguments: {} }, undefined, { onprogress: (p) => { progress.push(p.progress) } })
  return { text: (result.content as Array<{ text?: string }>)[0]?.text, progress }
}

t.test('plugin: the SDK client resumes a closed stream from the user\'s store, and DELETE empties it', async (t) => {
  const store = new RecordingStore()
  const { app, base } = await listeningCatalogApp(t, { eventStore: store })
  addCloser(app.mcp)
  const { client, transport } = await connectStreamable(`${base}/mcp`)
  t.teardown(() => client.close())
  const { text, progress } = await callCloser(client)
  t.equal(text, 'closed: true', 'the stream was closed mid-call and the answer still arrived')
  t.same(progress, [1, 2, 3], 'every progress notification, once')
  t.ok(store.calls.includes('append'), 'events went to the user\'s store')
  t.ok(store.calls.includes('replayAfter'), 'the resume was served from it')
  const session = transport.sessionId ?? ''
  t.ok(store.has(session))
  await transport.terminateSession()
  t.ok(await within(() => !store.has(session)), 'the ended session is forgotten by the store')
})

t.test('MCPServer: transport.options.eventStore is used as given, not copied or frozen', async (t) => {
  const store = new RecordingStore()
  const server = new MCPServer({ name: 's', version: '1.0.0', transport: { type: 'sse', options: { port: 0, eventStore: store } } })
  addCloser(server)
  t.teardown(() => server.stop())
  const { url } = await server.start()
  t.notOk(Object.isFrozen(store), 'the store is the caller\'s live object')
  const { client } = await connectStreamable(`${url}/mcp`)
  t.teardown(() => client.close())
  const { text, progress } = await callCloser(client)
  t.equal(text, 'closed: true')
  t.same(progress, [1, 2, 3])
  t.ok(store.calls.includes('replayAfter'), 'the resume was served from the given store')
})

t.test('a store that fails to record costs no answer: the calls are answered, the server keeps serving', async (t) => {
  const store = new RecordingStore()
  store.failAppends = true
  const { app, base } = await listeningCatalogApp(t, { eventStore: store })
  app.mcp.tool({ name: 'chatty', description: 'Reports progress and answers', inputSchema: Type.Object({}) }, async (_args, ctx) => {
    ctx.progress(1, 1)
    return { content: [{ type: 'text', text: 'ok' }] }
  })
  const { client } = await connectStreamable(`${base}/mcp`)
  t.teardown(() => client.close())
  for (let i = 0; i < 3; i++) {
    const progress: number[] = []
    const result = await client.callTool({ name: 'chatty', arguments: {} }, undefined, { onprogress: (p) => { progress.push(p.progress) } })
    t.same(result.content, [{ type: 'text', text: 'ok' }], `call ${i + 1} answered`)
    t.same(progress, [1], 'its progress delivered live')
  }
  t.ok(store.calls.filter((c) => c === 'append').length >= 3, 'the store was asked (and failed)')
})

t.test('bad eventStore values are refused with their path and what is missing', async (t) => {
  const info = { name: 'x', version: '1.0.0' }
  t.throws(() => resolvePluginOptions({ ...info, eventStore: {} }), {
    code: 'FST_MCP_INVALID_OPTIONS',
    message: /eventStore: expected an EventStore, an object with the methods append, replayAfter, deleteSession; missing: append, replayAfter, deleteSession/
  })
  t.throws(() => resolvePluginOptions({ ...info, eventStore: 42 }), { message: /eventStore: expected an EventStore, an object with the methods append, replayAfter, deleteSession, got 42/ })
  t.throws(() => resolvePluginOptions({ ...info, eventStore: 'redis://x' }), { message: /eventStore: expected an EventStore/ })
  t.throws(() => resolvePluginOptions({ ...info, stateless: true, eventStore: new RecordingStore() }), {
    message: /eventStore: refused together with stateless: a stateless server keeps no events to resume/
  })
  t.throws(() => new MCPServer({ ...info, transport: { type: 'sse', options: { eventStore: { append: () => {} } as unknown as EventStore } } }), {
    message: /transport\.options\.eventStore: expected an EventStore, an object with the methods append, replayAfter, deleteSession; missing: replayAfter, deleteSession/
  })
  const store = new RecordingStore()
  const input = { ...info, eventStore: store }
  const resolved = resolvePluginOptions(input)
  t.equal(resolved.eventStore, store, 'the very same object comes back')
  t.equal(input.eventStore, store, 'the caller\'s options are not touched')
  t.notOk(Object.isFrozen(store))
})

t.test('scale-out: the user\'s store is the log every instance resumes from, and DELETE elsewhere empties it', async (t) => {
  // One store object for three in-process instances: what a shared external store is to real ones.
  const store = new RecordingStore()
  const cluster = await startCluster(t, await memoryRig(), (app) => { addCloser(app.mcp) }, { eventStore: store })
  const { client, transport } = await clusterStreamable(t, cluster)
  const { text, progress } = await callCloser(client)
  t.equal(text, 'closed: true', 'answered after a resume on another instance')
  t.same(progress, [1, 2, 3], 'every progress notification, once')
  t.ok(store.calls.includes('replayAfter'), 'replayed from the user\'s store')
  const session = transport.sessionId ?? ''
  t.ok(store.has(session))
  await transport.terminateSession()
  t.ok(await within(() => !store.has(session)), 'the session\'s events are deleted from the user\'s store')
})

t.test('scale-out: with the user\'s store in place, the rest of the engine is its own (restart handling included)', async (t) => {
  const hub = new MemoryHub()
  let restartHandlers = 0
  const rig: EngineRig = {
    name: 'memory, with restarts',
    engine: async (id) => ({ ...hub.engine(id), onRedisRestart: () => { restartHandlers++ } }),
    close: async () => { await hub.close() }
  }
  await startCluster(t, rig, () => {}, { eventStore: new RecordingStore() }, 1)
  t.equal(restartHandlers, 1, 'the instance listens for a Redis restart through the engine it was given')
})
