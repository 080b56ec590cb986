// A subscriptions/listen stream ends when the guard stops accepting the token that opened it, as
// GET streams do (issue 19, item 5): a short-lived RS256 JWT verified against a JWKS served on
// loopback, a raw socket as an attacker would hold it, the stream delivering until the token
// expires, then its graceful end and nothing after.
import t from 'tap'
import Fastify from 'fastify'
import mcp from '../../src/index.js'
import { bearer } from '../helpers/auth-app.js'
import { makeKey, nowSeconds, signWith, startJwksServer } from '../helpers/auth-keys.js'
import { headersFor, modern } from '../helpers/modern.js'
import { deadline, sleep } from '../helpers/wait.js'
import { messageOf, raw } from '../helpers/streamable-raw.js'

const ISSUER = 'https://idp.test'
const SUB = 'io.modelcontextprotocol/subscriptionId'

t.test('a listen stream ends with its token: the complete result, then nothing more', async (t) => {
  const key = makeKey('RS256', 'listen-expiry')
  const jwks = await startJwksServer([key])
  t.teardown(() => jwks.close())
  const app = Fastify({ forceCloseConnections: true })
  t.teardown(() => app.close())
  // No clock tolerance: the token is refused the moment its exp passes.
  await app.register(mcp, { auth: { type: 'jwt', options: { jwksUri: jwks.url, algorithms: ['RS256'], issuer: ISSUER, clockToleranceSeconds: 0 } } })
  app.mcp.tool({ name: 'first' }, async () => ({ content: [] }))
  const base = await app.listen({ port: 0, host: '127.0.0.1' })

  // Long enough to open the stream on a busy machine, short enough to wait for.
  const expiresAt = nowSeconds() + 3
  const shortLived = signWith(key, { iss: ISSUER, sub: 'alice', exp: expiresAt })
  const body = modern('L', 'subscriptions/listen', { notifications: { toolsListChanged: true } })
  const stream = await raw(`${base}/mcp`, 'POST', { ...headersFor(body), ...bearer(shortLived) }, body)
  t.teardown(() => { stream.destroy() })
  t.equal(stream.status, 200)
  t.equal(messageOf(await stream.next()).method, 'notifications/subscriptions/acknowledged')
  app.mcp.tool({ name: 'second' }, async () => ({ content: [] }))
  t.same(messageOf(await stream.next()), { jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { [SUB]: 'L' } } },
    'delivers while the token is valid')

  // Past the expiry, a change: an expired stream must not carry it.
  await sleep(expiresAt * 1000 + 300 - Date.now())
  app.mcp.tool({ name: 'third' }, async () => ({ content: [] }))
  const end = messageOf(await deadline(stream.next(), 5000, 'the stream\'s next message'))
  t.match(end, { jsonrpc: '2.0', id: 'L', result: { resultType: 'complete', _meta: { [SUB]: 'L' } } }, 'the server ended the subscription, and the change after it never came')
  t.same(await deadline(stream.rest(), 5000, 'the stream\'s end'), [], 'the HTTP stream ended with it')
  t.equal((app.mcp as unknown as { listen: { size: number } }).listen.size, 0, 'the stream is freed')

  const refused = await raw(`${base}/mcp`, 'POST', { ...headersFor(body), ...bearer(shortLived) }, body)
  t.equal(refused.status, 401, 'the same token cannot listen again')
  await refused.text()
  const fresh = signWith(key, { iss: ISSUER, sub: 'alice', exp: nowSeconds() + 300 })
  const again = await raw(`${base}/mcp`, 'POST', { ...headersFor(body), ...bearer(fresh) }, body)
  t.teardown(() => { again.destroy() })
  t.equal(messageOf(await again.next()).method, 'notifications/subscriptions/acknowledged', 'a fresh token listens again')
})

t.test('a token without expiry, or no auth: the stream stays open', async (t) => {
  const app = Fastify({ forceCloseConnections: true })
  t.teardown(() => app.close())
  await app.register(mcp, { auth: { type: 'apikey', options: { keys: ['listen-expiry-key-aaaaaaaa'] } } })
  app.mcp.tool({ name: 'first' }, async () => ({ content: [] }))
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const body = modern(1, 'subscriptions/listen', { notifications: { toolsListChanged: true } })
  const stream = await raw(`${base}/mcp`, 'POST', { ...headersFor(body), 'x-api-key': 'listen-expiry-key-aaaaaaaa' }, body)
  t.teardown(() => { stream.destroy() })
  await stream.next()
  await sleep(300)
  app.mcp.tool({ name: 'second' }, async () => ({ content: [] }))
  t.equal(messageOf(await stream.next()).method, 'notifications/tools/list_changed', 'an API key does not expire: still delivering')
})
