// Every bound a client can meet is counted in fastify_mcp.server.limit.refusals under its option's
// name (issue 19, "Build"), and named to the client in `data.limit` where the answer is JSON-RPC:
// one raw request past each of six bounds of one server, then one read of the counter.
import t from 'tap'
import { listeningCatalogApp } from '../helpers/serve.js'
import { installOtel } from '../fixtures/otel.js'
import { BOTH, openSession, raw } from '../helpers/streamable-raw.js'
import { headersFor, modern, sseMessages } from '../helpers/modern.js'

t.test('refusals past maxInitializeBytes, maxUriBytes, maxSubscriptions, bodyLimit, listen bounds: each named and counted once', async (t) => {
  const otel = installOtel()
  t.teardown(otel.shutdown)
  const { base } = await listeningCatalogApp(t, {
    bodyLimit: 16_384,
    maxInitializeBytes: 256,
    maxUriBytes: 64,
    maxSubscriptions: 1,
    listen: { maxResourceSubscriptions: 1, maxRequestBytes: 2048 }
  })
  const url = `${base}/mcp`
  const post = async (body: unknown, headers: Record<string, string> = BOTH): Promise<{ status: number, body: any }> => {
    const reply = await raw(url, 'POST', headers, body)
    const text = await reply.text()
    return { status: reply.status, body: text.startsWith('{') ? JSON.parse(text) : sseMessages(text).pop() }
  }
  const limitOf = (answer: { body: any }): unknown => answer.body.error?.data?.limit

  const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: { experimental: { pad: 'p'.repeat(300) } }, clientInfo: { name: 'c', version: '1' } } }
  t.equal(limitOf(await post(initialize)), 'maxInitializeBytes')
  const session = { ...BOTH, 'mcp-session-id': await openSession(url), 'mcp-protocol-version': '2025-11-25' }
  t.equal(limitOf(await post({ jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri: `docs://${'u'.repeat(64)}` } }, session)), 'maxUriBytes')
  t.same((await post({ jsonrpc: '2.0', id: 3, method: 'resources/subscribe', params: { uri: 'docs://readme' } }, session)).body.result, {})
  t.equal(limitOf(await post({ jsonrpc: '2.0', id: 4, method: 'resources/subscribe', params: { uri: 'images://pixel.png' } }, session)), 'maxSubscriptions')
  const large = await post({ jsonrpc: '2.0', id: 5, method: 'tools/list', params: { pad: 'p'.repeat(20_000) } }, session)
  t.equal(large.status, 413, 'a body past bodyLimit')
  const listen = modern(6, 'subscriptions/listen', { notifications: { resourceSubscriptions: ['docs://readme', 'images://pixel.png'] } })
  t.equal(limitOf(await post(listen, headersFor(listen))), 'listen.maxResourceSubscriptions')
  const heavy = modern(7, 'subscriptions/listen', { notifications: { toolsListChanged: true } }, { pad: 'p'.repeat(3000) })
  t.equal(limitOf(await post(heavy, headersFor(heavy))), 'listen.maxRequestBytes')

  const { metrics } = await otel.read()
  const points = metrics.find((m) => m.name === 'fastify_mcp.server.limit.refusals')?.points ?? []
  const counted = Object.fromEntries(points.map((point) => [point.attributes['fastify_mcp.limit'], point.value]))
  t.same(counted, { maxInitializeBytes: 1, maxUriBytes: 1, maxSubscriptions: 1, bodyLimit: 1, 'listen.maxResourceSubscriptions': 1, 'listen.maxRequestBytes': 1 })
})
