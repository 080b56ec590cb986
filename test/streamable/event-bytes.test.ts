// The events kept to resume Streamable HTTP streams are bounded per client and overall in bytes
// (eventStoreBytesPerClient, eventStoreBytesTotal): with eventStoreBytes per session only, one
// client's 100 sessions could keep 400 MiB. Raw HTTP from three loopback addresses (three hosts
// without auth); a stream is resumable when a GET with the id of its log event replays its answer.
import t from 'tap'
import { installOtel } from '../fixtures/otel.js'
import { listeningCatalogApp } from '../helpers/serve.js'
import { callBig, registerBig, resumesBig } from '../helpers/event-bytes.js'
import { openSessionWith, raw } from '../helpers/streamable-raw.js'

const KB = 1024

t.test('a client\'s sessions keep eventStoreBytesPerClient of events, all clients eventStoreBytesTotal; past either an answer is written live, not kept', async (t) => {
  const otel = installOtel()
  t.teardown(otel.shutdown)
  const { app, base } = await listeningCatalogApp(t, { eventStoreBytes: 8 * KB, eventStoreBytesPerClient: 16 * KB, eventStoreBytesTotal: 24 * KB })
  registerBig(app.mcp)
  const url = `${base}/mcp`
  const open = async (address: string): Promise<string> => await openSessionWith(url, {}, '2025-11-25', {}, { localAddress: address })
  const call = async (session: string, address: string): Promise<string> => await callBig(t, url, session, address)
  const resumable = async (session: string, lastEventId: string): Promise<boolean> => await resumesBig(t, url, session, lastEventId)
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
