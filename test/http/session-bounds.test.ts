import t, { type Test } from 'tap'
import { MCPServer, type MCPPluginOptions } from '../../src/index.js'
import { MemoryEventStore } from '../../src/scale/memory/event-store.js'
import { connectStreamable } from '../helpers/clients.js'
import { BOTH, messageOf, openSession, raw } from '../helpers/streamable-raw.js'
import { rpcError } from '../helpers/rpc-error.js'
import { serve } from '../helpers/serve.js'
import { endpointOf, openRawStream } from '../helpers/sse-raw.js'
import { until } from '../helpers/wait.js'

// Issue 10, defect 3: what one session may make the server hold is bounded. Subscriptions by
// count (and by URI length through maxUriBytes), requests in flight by count, the Streamable HTTP
// event store by bytes as well as by events. Everything over real sockets, with the defaults
// where they are cheap enough to reach.

const MiB = 1024 * 1024

/** A slow tool whose calls wait until `release()`; `entered` counts handlers running. */
/** The app with a gated `slow` tool (`state` counts the handlers that entered, and releases them), `big` and `feed://`. */
async function boundedApp (t: Test, options: Partial<MCPPluginOptions> = {}) {
  let release!: () => void
  let gate = new Promise<void>((resolve) => { release = resolve })
  const state = { entered: 0, release: () => { release(); gate = new Promise<void>((resolve) => { release = resolve }) } }
  const { app, base } = await serve(t, { name: 'bounds', version: '1.0.0', ...options }, (app) => {
    app.mcp.tool({ name: 'slow' }, async () => {
      state.entered++
      await gate
      return { content: [{ type: 'text', text: 'done' }] }
    })
    app.mcp.tool({ name: 'big', description: 'Logs (the answer becomes an event stream), then answers 1 MiB' }, async (_args, ctx) => {
      ctx.log('info', 'starting')
      return { content: [{ type: 'text', text: 'x'.repeat(MiB) }] }
    })
    app.mcp.resource({ uri: 'feed://{id}', name: 'feed' }, async (uri) => ({ contents: [{ uri, text: 'ok' }] }))
  })
  return { app, base, state }
}

t.test('subscriptions per session are bounded by maxSubscriptions (default 100)', async (t) => {
  const { app, base } = await boundedApp(t)
  const { client } = await connectStreamable(`${base}/mcp`)
  t.teardown(() => client.close())
  for (let i = 0; i < 100; i++) await client.subscribeResource({ uri: `feed://${i}` })
  t.same(await client.subscribeResource({ uri: 'feed://7' }), {}, 'subscribing again to a URI held costs nothing and is fine')
  t.match(await rpcError(client.subscribeResource({ uri: 'feed://100' })), {
    code: -32600,
    message: /this session holds 100 subscriptions \(maxSubscriptions\); unsubscribe first/,
    data: { maxSubscriptions: 100 }
  }, 'the 101st URI is refused')
  await client.unsubscribeResource({ uri: 'feed://0' })
  t.same(await client.subscribeResource({ uri: 'feed://100' }), {}, 'after an unsubscribe there is room again')
  t.equal(app.mcp.notifyResourceUpdated('feed://100'), 1, 'the new subscription is live')
  t.equal(app.mcp.notifyResourceUpdated('feed://0'), 0, 'the dropped one is gone')
})

t.test('requests in flight per session are bounded by maxInflightRequests (default 1000), over legacy SSE', async (t) => {
  const { base, state } = await boundedApp(t)
  const stream = await openRawStream(`${base}/sse`)
  t.teardown(() => stream.destroy())
  const messages = new URL(endpointOf(await stream.next()), base).href
  const post = async (message: Record<string, unknown>): Promise<number> => {
    const reply = await fetch(messages, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(message) })
    await reply.arrayBuffer()
    return reply.status
  }
  const answers = new Map<unknown, any>()
  const reading = (async () => {
    for (;;) {
      const frame = await stream.next()
      const data = /^event: message\ndata: (.*)$/s.exec(frame)?.[1]
      if (data !== undefined) {
        const message = JSON.parse(data)
        answers.set(message.id, message)
      }
    }
  })()
  void reading.catch(() => {})
  await post({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } })
  await until(() => answers.has('init'), { timeoutMs: 10_000, what: 'the initialize answer' })
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' })
  const statuses = new Set<number>()
  for (let id = 1; id <= 1000; id++) statuses.add(await post({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'slow' } }))
  t.same([...statuses], [202], '1000 slow calls accepted')
  await until(() => state.entered === 1000, { timeoutMs: 20_000, what: '1000 handlers running' })
  t.equal(await post({ jsonrpc: '2.0', id: 1001, method: 'tools/call', params: { name: 'slow' } }), 202)
  await until(() => answers.has(1001), { timeoutMs: 10_000, what: 'the answer to call 1001' })
  t.same(answers.get(1001), {
    jsonrpc: '2.0',
    id: 1001,
    error: { code: -32600, message: 'Too many requests in flight on this session (maxInflightRequests: 1000); wait for answers before sending more', data: { maxInflightRequests: 1000, limit: 'maxInflightRequests', max: 1000 } }
  }, 'call 1001 gets a clear JSON-RPC error')
  t.equal(state.entered, 1000, 'its handler never ran')
  state.release()
  await until(() => answers.size === 1002, { timeoutMs: 20_000, what: 'every answer' })
  t.ok([...Array(1000).keys()].every((i) => answers.get(i + 1)?.result?.content?.[0]?.text === 'done'), 'the 1000 calls in flight were answered')
  t.equal(await post({ jsonrpc: '2.0', id: 1002, method: 'ping' }), 202)
  await until(() => answers.has(1002), { timeoutMs: 10_000, what: 'the ping' })
  t.same(answers.get(1002).result, {}, 'with room again, the session serves')
})

t.test('maxInflightRequests over Streamable HTTP with the SDK client', async (t) => {
  const { base, state } = await boundedApp(t, { maxInflightRequests: 3 })
  const { client } = await connectStreamable(`${base}/mcp`)
  t.teardown(() => client.close())
  const slow = [1, 2, 3].map(async () => await client.callTool({ name: 'slow' }))
  await until(() => state.entered === 3, { timeoutMs: 10_000, what: 'three handlers running' })
  t.match(await rpcError(client.callTool({ name: 'slow' })), { code: -32600, message: /maxInflightRequests: 3/ }, 'the fourth is refused')
  state.release()
  t.same((await Promise.all(slow)).map((result) => result.content), Array(3).fill([{ type: 'text', text: 'done' }]))
  const again = client.callTool({ name: 'slow' })
  await until(() => state.entered === 4, { timeoutMs: 10_000, what: 'the next call running' })
  state.release()
  t.same((await again).content, [{ type: 'text', text: 'done' }], 'answers freed the room')
})

t.test('the memory event store evicts by bytes as well as by count', async (t) => {
  const store = new MemoryEventStore(100, 10)
  store.append('a', '1', { id: '1', data: 'aaaa' })
  store.append('a', '1', { id: '2', data: 'bbbb' })
  store.append('a', '1', { id: '3', data: '' })
  t.same(store.replayAfter('a', '1'), { streamId: '1', events: [{ id: '2', data: 'bbbb' }] }, '8 bytes held')
  store.append('a', '1', { id: '4', data: 'cccc' })
  t.equal(store.replayAfter('a', '1'), undefined, 'the oldest went to make room')
  t.same(store.replayAfter('a', '2'), { streamId: '1', events: [{ id: '4', data: 'cccc' }] })
  store.append('a', '1', { id: '5', data: 'éé' }) // 4 bytes in UTF-8, 2 characters
  t.equal(store.replayAfter('a', '2'), undefined, 'bytes are counted in UTF-8')
  store.append('a', '1', { id: '6', data: 'x'.repeat(11) })
  t.equal(store.replayAfter('a', '4'), undefined, 'an event larger than the bound is not kept, and nothing before it is either:')
  t.equal(store.replayAfter('a', '6'), undefined, 'a client resuming across it learns its events are gone instead of missing one silently')
  store.append('a', '1', { id: '7', data: 'ok' })
  t.same(store.replayAfter('a', '7'), { streamId: '1', events: [] }, 'later events are kept again')
  store.append('a', '1', { id: '8', data: 'dddddddd' })
  t.same(store.replayAfter('a', '7'), { streamId: '1', events: [{ id: '8', data: 'dddddddd' }] }, '2 bytes held: 8 more reach the bound and evict nothing')
  store.append('a', '1', { id: '9', data: 'e' })
  t.equal(store.replayAfter('a', '7'), undefined, 'one byte more evicts the oldest')
  store.deleteSession('a')
  t.equal(store.replayAfter('a', '8'), undefined, 'a deleted session replays nothing')
  store.append('a', '1', { id: '10', data: 'f'.repeat(10) })
  t.same(store.replayAfter('a', '10'), { streamId: '1', events: [] }, 'and holds no bytes: an event of the whole bound is kept')
})

t.test('the Streamable HTTP event store holds at most eventStoreBytes (default 4 MiB) per session', async (t) => {
  const { base } = await boundedApp(t)
  const url = `${base}/mcp`
  const session = await openSession(url)
  const firstEvents: string[] = []
  let lastLog = ''
  for (let id = 1; id <= 8; id++) {
    const reply = await raw(url, 'POST', { ...BOTH, 'mcp-session-id': session }, { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'big' } })
    const events = await reply.rest()
    const log = events.find((event) => event.data !== undefined && event.data !== '' && messageOf(event).method === 'notifications/message')
    const result = events.find((event) => event.data !== undefined && event.data !== '' && messageOf(event).id === id)
    t.equal(messageOf(result ?? {}).result.content[0].text.length, MiB, `call ${id}: 1 MiB answered on an event stream`)
    if (log?.id === undefined) throw new Error('the log event has no id')
    if (id === 1) firstEvents.push(log.id)
    lastLog = log.id
  }
  const old = await raw(url, 'GET', { accept: 'text/event-stream', 'mcp-session-id': session, 'last-event-id': firstEvents[0] as string })
  t.equal(old.status, 400, '8 MiB of answers were sent; the first ones are no longer held')
  await old.text()
  const recent = await raw(url, 'GET', { accept: 'text/event-stream', 'mcp-session-id': session, 'last-event-id': lastLog })
  t.equal(recent.status, 200, 'the most recent events are held')
  const replayed = await recent.next()
  t.equal(messageOf(replayed).result.content[0].text.length, MiB, 'and replayed')
  recent.destroy()
})

t.test('the new bounds are validated with the other options', async (t) => {
  for (const [key, bad] of [['maxSubscriptions', 0], ['maxInflightRequests', 0], ['maxSubscriptions', 1.5], ['maxInflightRequests', '9']] as const) {
    t.throws(() => new MCPServer({ [key]: bad } as never), { code: 'FST_MCP_INVALID_OPTIONS', problems: [{ path: key }] }, `${key}: ${JSON.stringify(bad)}`)
  }
  t.throws(() => new MCPServer({ transport: { type: 'sse', options: { eventStoreBytes: 100 } } }),
    { code: 'FST_MCP_INVALID_OPTIONS', problems: [{ path: 'transport.options.eventStoreBytes' }] })
  const { options } = new MCPServer({ transport: { type: 'sse' } })
  t.match(options, { maxSubscriptions: 100, maxInflightRequests: 1000, transport: { options: { eventStoreBytes: 4 * MiB } } }, 'the defaults')
})
