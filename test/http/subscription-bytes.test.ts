// Resource subscriptions (2025-11-25) are bounded per client and overall in bytes
// (maxSubscriptionBytesPerClient, maxSubscriptionBytes): with only maxSubscriptions x maxUriBytes
// per session, one client's 100 sessions could hold 80 MiB of URIs. Raw HTTP from three loopback
// addresses (three hosts without auth).
import t from 'tap'
import { listeningCatalogApp } from '../helpers/serve.js'
import { installOtel } from '../fixtures/otel.js'
import { BOTH, openSessionWith, raw } from '../helpers/streamable-raw.js'

const KB = 1024

t.test('a client\'s sessions hold maxSubscriptionBytesPerClient of URIs, all clients maxSubscriptionBytes; unsubscribe and close give them back', async (t) => {
  const otel = installOtel()
  t.teardown(otel.shutdown)
  const { app, base } = await listeningCatalogApp(t, { maxUriBytes: 8 * KB, maxSubscriptionBytesPerClient: 24 * KB, maxSubscriptionBytes: 40 * KB })
  app.mcp.resource({ uri: 'feed://{id}', name: 'feed' }, async (uri) => ({ contents: [{ uri, text: 'ok' }] }))
  const url = `${base}/mcp`
  // A URI of about 8 KiB: three fit in a client's share, five in everyone's.
  const uri = (n: number): string => `feed://${String(n).padStart(8 * KB - 7, '0')}`
  const open = async (address: string): Promise<string> => await openSessionWith(url, {}, '2025-11-25', {}, { localAddress: address })
  let id = 0
  const rpc = async (session: string, address: string, method: string, params: Record<string, unknown>): Promise<any> => {
    const reply = await raw(url, 'POST', { ...BOTH, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' }, { jsonrpc: '2.0', id: ++id, method, params }, { localAddress: address })
    return JSON.parse(await reply.text())
  }
  const subscribe = async (session: string, address: string, n: number): Promise<any> => await rpc(session, address, 'resources/subscribe', { uri: uri(n) })

  // One client, three sessions of one URI each: its share is full, whichever session asks next.
  const mine = [await open('127.0.0.1'), await open('127.0.0.1'), await open('127.0.0.1'), await open('127.0.0.1')]
  for (const [i, session] of mine.slice(0, 3).entries()) t.same((await subscribe(session, '127.0.0.1', i)).result, {})
  t.same((await subscribe(mine[0]!, '127.0.0.1', 0)).result, {}, 'subscribing again to a URI held costs nothing')
  t.match(await subscribe(mine[3]!, '127.0.0.1', 3), {
    error: { code: -32600, message: /the sessions of one client may hold 24576 bytes \(maxSubscriptionBytesPerClient\)/, data: { limit: 'maxSubscriptionBytesPerClient', max: 24 * KB } }
  }, 'a fourth URI of the same client is refused, on a session that holds none')
  t.equal(app.mcp.notifyResourceUpdated(uri(3)), 0, 'and not subscribed')

  // Another host is another client, until everyone together holds maxSubscriptionBytes.
  const other = await open('127.0.0.2')
  t.same((await subscribe(other, '127.0.0.2', 10)).result, {}, 'another client is still served')
  t.same((await subscribe(other, '127.0.0.2', 11)).result, {})
  const third = await open('127.0.0.3')
  t.match(await subscribe(third, '127.0.0.3', 20), { error: { code: -32600, data: { limit: 'maxSubscriptionBytes', max: 40 * KB } } }, 'past everyone\'s bound')

  // An unsubscribe gives the client's bytes back, and so does closing a session.
  t.same((await rpc(mine[1]!, '127.0.0.1', 'resources/unsubscribe', { uri: uri(1) })).result, {})
  t.same((await subscribe(mine[3]!, '127.0.0.1', 3)).result, {}, 'room again after an unsubscribe')
  t.match(await subscribe(mine[1]!, '127.0.0.1', 1), { error: { data: { limit: 'maxSubscriptionBytesPerClient' } } })
  const closed = await raw(url, 'DELETE', { 'mcp-session-id': mine[0]!, 'mcp-protocol-version': '2025-11-25' }, undefined, { localAddress: '127.0.0.1' })
  t.equal(closed.status, 204)
  t.same((await subscribe(mine[1]!, '127.0.0.1', 1)).result, {}, 'room again after a session closed')

  // Every other session closed: the third client gets its whole share.
  for (const session of [mine[1]!, mine[2]!, mine[3]!]) await (await raw(url, 'DELETE', { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' }, undefined, { localAddress: '127.0.0.1' })).text()
  await (await raw(url, 'DELETE', { 'mcp-session-id': other, 'mcp-protocol-version': '2025-11-25' }, undefined, { localAddress: '127.0.0.2' })).text()
  for (let n = 20; n < 23; n++) t.same((await subscribe(third, '127.0.0.3', n)).result, {}, `URI ${n - 19} of a client, once the others let go of everything`)

  const { metrics } = await otel.read()
  const points = metrics.find((m) => m.name === 'fastify_mcp.server.limit.refusals')?.points ?? []
  const counted = Object.fromEntries(points.map((point) => [point.attributes['fastify_mcp.limit'], point.value]))
  t.same(counted, { maxSubscriptionBytesPerClient: 2, maxSubscriptionBytes: 1 }, 'each refusal counted under its option')
})

t.test('options: the subscription byte bounds are validated', async (t) => {
  const { resolvePluginOptions, resolveServerOptions } = await import('../../src/schemas/resolve.js')
  t.match(resolvePluginOptions({}), { maxSubscriptionBytesPerClient: 4 * KB * KB, maxSubscriptionBytes: 64 * KB * KB }, 'the defaults')
  t.throws(() => resolvePluginOptions({ maxSubscriptionBytesPerClient: '9' } as never), { code: 'FST_MCP_INVALID_OPTIONS', problems: [{ path: 'maxSubscriptionBytesPerClient' }] }, 'a string')
  t.throws(() => resolveServerOptions({ maxSubscriptionBytes: 1.5 } as never), { code: 'FST_MCP_INVALID_OPTIONS', problems: [{ path: 'maxSubscriptionBytes' }] }, 'not an integer')
  t.equal(resolveServerOptions({ maxUriBytes: 8 * KB * KB }).maxSubscriptionBytesPerClient, 4 * KB * KB, 'long URIs for reads need no larger share of subscriptions')
  t.throws(() => resolvePluginOptions({ maxSubscriptionBytesPerClient: 128 * KB * KB }), { message: /maxSubscriptionBytes: .*smaller than maxSubscriptionBytesPerClient/ })
  t.equal(resolveServerOptions({ maxSubscriptionBytesPerClient: 1024, maxSubscriptionBytes: 1024 }).maxSubscriptionBytes, 1024)
})
