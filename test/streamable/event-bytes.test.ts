// The events kept to resume Streamable HTTP streams are bounded per client and overall in bytes
// (eventStoreBytesPerClient, eventStoreBytesTotal): with eventStoreBytes per session only, one
// client's 100 sessions could keep 400 MiB. Raw HTTP from three loopback addresses (three hosts
// without auth); a stream is resumable when a GET with the id of its log event replays its answer.
import t from 'tap'
import { installOtel } from '../fixtures/otel.js'
import { listeningCatalogApp } from '../helpers/serve.js'
import { BOTH, messageOf, openSessionWith, raw } from '../helpers/streamable-raw.js'

const KB = 1024
const ANSWER = 6500

t.test('a client\'s sessions keep eventStoreBytesPerClient of events, all clients eventStoreBytesTotal; past either an answer is written live, not kept', async (t) => {
  const otel = installOtel()
  t.teardown(otel.shutdown)
  const { app, base } = await listeningCatalogApp(t, { eventStoreBytes: 8 * KB, eventStoreBytesPerClient: 16 * KB, eventStoreBytesTotal: 24 * KB })
  app.mcp.tool({ name: 'big', description: 'Logs (the answer becomes an event stream), then answers 6500 characters' }, async (_args, ctx) => {
    ctx.log('info', 'starting')
    return { content: [{ type: 'text', text: 'x'.repeat(ANSWER) }] }
  })
  const url = `${base}/mcp`
  const open = async (address: string): Promise<string> => await openSessionWith(url, {}, '2025-11-25', {}, { localAddress: address })
  /** Calls `big` on `session`; returns the id of the log event before the answer. */
  const call = async (session: string, address: string): Promise<string> => {
    const reply = await raw(url, 'POST', { ...BOTH, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'big' } }, { localAddress: address })
    const events = (await reply.rest()).filter((event) => event.data !== undefined && event.data !== '')
    t.equal(messageOf(events.at(-1) ?? {}).result.content[0].text.length, ANSWER, 'answered live, kept or not')
    const log = events.find((event) => messageOf(event).method === 'notifications/message')
    if (log?.id === undefined) throw new Error('no log event with an id')
    return log.id
  }
  /** Whether the answer after `lastEventId` is kept: a resume replays it (200), or the id is gone (400). */
  const resumable = async (session: string, lastEventId: string): Promise<boolean> => {
    const resume = await raw(url, 'GET', { accept: 'text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25', 'last-event-id': lastEventId })
    if (resume.status === 400) {
      await resume.text()
      return false
    }
    t.equal(resume.status, 200)
    const replayed = (await resume.rest()).filter((event) => event.data !== undefined && event.data !== '')
    return messageOf(replayed[0] ?? {}).result?.content[0].text.length === ANSWER
  }
  const close = async (session: string): Promise<void> => {
    const reply = await raw(url, 'DELETE', { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' })
    t.equal(reply.status, 204)
  }

  // One client: two answers fill most of its share; the third session's is not kept.
  const mine = [await open('127.0.0.1'), await open('127.0.0.1'), await open('127.0.0.1')] as const
  const kept = [await call(mine[0], '127.0.0.1'), await call(mine[1], '127.0.0.1')]
  const cut = await call(mine[2], '127.0.0.1')
  t.equal(await resumable(mine[2], cut), false, 'past the client\'s share: not kept, nor the session\'s events before it')
  t.equal(await resumable(mine[0], kept[0]!), true, 'the client\'s kept answers are still there')

  // Another host is another client, until everyone together holds eventStoreBytesTotal.
  const other = await open('127.0.0.2')
  t.equal(await resumable(other, await call(other, '127.0.0.2')), true, 'another client is still served')
  const third = await open('127.0.0.3')
  t.equal(await resumable(third, await call(third, '127.0.0.3')), false, 'past everyone\'s bound: not kept')

  // A session's end gives its bytes back.
  await close(mine[0])
  t.equal(await resumable(mine[2], await call(mine[2], '127.0.0.1')), true, 'room again once a session of the client ended')

  const { metrics } = await otel.read()
  const points = metrics.find((m) => m.name === 'fastify_mcp.server.limit.refusals')?.points ?? []
  const counted = Object.fromEntries(points.map((point) => [point.attributes['fastify_mcp.limit'], point.value]))
  t.same(counted, { eventStoreBytesPerClient: 1, eventStoreBytesTotal: 1 }, 'each event a bound kept out, counted under its option')
  for (const session of [mine[1], mine[2], other, third]) await close(session)
})

t.test('options: the kept-event byte bounds are validated', async (t) => {
  const { resolvePluginOptions, resolveServerOptions } = await import('../../src/schemas/resolve.js')
  const MiB = KB * KB
  t.match(resolvePluginOptions({}), { eventStoreBytes: 4 * MiB, eventStoreBytesPerClient: 64 * MiB, eventStoreBytesTotal: 512 * MiB }, 'the defaults')
  t.throws(() => resolvePluginOptions({ eventStoreBytesPerClient: '9' } as never), { code: 'FST_MCP_INVALID_OPTIONS', problems: [{ path: 'eventStoreBytesPerClient' }] }, 'a string')
  t.throws(() => resolveServerOptions({ transport: { type: 'sse', options: { eventStoreBytesTotal: 100 } } }),
    { code: 'FST_MCP_INVALID_OPTIONS', problems: [{ path: 'transport.options.eventStoreBytesTotal' }] }, 'below the minimum')
  t.throws(() => resolvePluginOptions({ eventStoreBytesPerClient: 2 * MiB }), { message: /eventStoreBytesPerClient: 2097152 is smaller than eventStoreBytes \(4194304\)/ }, 'below one session\'s bound')
  t.throws(() => resolveServerOptions({ transport: { type: 'sse', options: { eventStoreBytesPerClient: 1024 * MiB } } }), { message: /transport\.options\.eventStoreBytesTotal: .*smaller than eventStoreBytesPerClient/ })
  t.equal(resolvePluginOptions({ eventStoreBytes: 2 * MiB, eventStoreBytesPerClient: 2 * MiB }).eventStoreBytesPerClient, 2 * MiB)
})
