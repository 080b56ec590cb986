// Issue 19, item 3 (the rest): a legacy SSE POST forwarded to the instance holding its stream is
// written into that instance's Redis inbox with what the receiving instance verified of its caller.
// That entry kept the whole principal, the token's claims included. Now it carries the identity,
// scopes and expiry only; on the owner, ctx.auth has the POST's scopes and expiry and the claims
// of the stream's GET (the same identity, checked before forwarding).
import t from 'tap'
import { Type } from '@sinclair/typebox'
import { signHmac, nowSeconds } from '../helpers/auth-keys.js'
import { bearer } from '../helpers/auth-app.js'
import { redisTest, startRedis } from '../helpers/redis-server.js'
import { KEYS, openLegacy, post, startInstances } from '../helpers/scale-attack.js'
import { until } from '../helpers/wait.js'

const SECRET = 'a-shared-secret-of-at-least-32-bytes-0123456789'
const AUTH = { auth: { type: 'jwt', options: { secret: SECRET, algorithms: ['HS256'] } } }
const token = (claims: Record<string, unknown>): string => signHmac(SECRET, { sub: 'alice', exp: nowSeconds() + 600, ...claims })

t.test('a forwarded POST\'s inbox entry holds no claim of its token', redisTest(t), async (t) => {
  const redis = await startRedis(t)
  const [, i1] = await startInstances(t, redis, 2, AUTH)
  if (i1 === undefined) throw new Error('no instances')
  // An owner that beats and never reads: the entry stays in its inbox for the test to read.
  await redis.command('ZADD', KEYS.live, String(Date.now() + 3_600_000), 'stalled')
  await redis.command('SET', KEYS.inboxBytes('stalled', 0), '0', 'PX', '60000')
  const sid = 'legacy-session-of-alice'
  await redis.command('HSET', KEYS.session(sid), 'r.id', JSON.stringify(sid), 'r.kind', '"sse"', 'r.protocolVersion', '"2024-11-05"',
    'r.clientCapabilities', '{}', 'r.subscriptions', '[]', 'r.principal', JSON.stringify({ method: 'jwt', kind: 'user', subject: 'alice' }), 'gw', 'stalled')
  const answer = await post(i1.url, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } },
    bearer(token({ scope: 'read', tenant: 'claim-value-of-the-tenant', email: 'alice@example.test' })), `/messages?sessionId=${sid}`)
  t.equal(answer.status, 202, 'forwarded')
  const raw = await redis.command('XRANGE', KEYS.inbox('stalled', 0), '-', '+')
  t.match(raw, /"subject":"alice"/, 'the entry names the caller')
  t.match(raw, /"scopes":\["read"\]/, 'and its scopes')
  t.notMatch(raw, /claim-value-of-the-tenant|alice@example\.test|"claims"/, 'and no claim of its token')
})

t.test('on the owner, a forwarded POST\'s ctx.auth: the POST\'s scopes and expiry, the stream GET\'s claims', redisTest(t), async (t) => {
  const redis = await startRedis(t)
  const [i0, i1] = await startInstances(t, redis, 2, AUTH)
  if (i0 === undefined || i1 === undefined) throw new Error('no instances')
  i0.app.mcp.tool({ name: 'whoami', inputSchema: Type.Object({}) }, async (_args, ctx) => ({ content: [{ type: 'text', text: JSON.stringify(ctx.auth ?? null) }] }))
  const streamExp = nowSeconds() + 600
  const postExp = nowSeconds() + 300
  // The stream on i0 (opened with the first token); the POST to i1 with another token of alice's.
  const legacy = await openLegacy(t, i0.url, i0.url, bearer(token({ scope: 'read write', tenant: 'acme', exp: streamExp })))
  const answer = await post(i1.url, { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'whoami', arguments: {} } },
    bearer(token({ scope: 'read', tenant: 'refreshed', exp: postExp })), legacy.endpoint)
  t.equal(answer.status, 202, 'forwarded')
  await until(() => legacy.messages.some((m) => m.id === 7), { what: 'the call answered on the stream' })
  const auth = JSON.parse(legacy.messages.find((m) => m.id === 7)?.result?.content?.[0]?.text ?? 'null')
  t.match(auth, { method: 'jwt', kind: 'user', subject: 'alice', scopes: ['read'], expiresAt: postExp * 1000 }, 'the identity, scopes and expiry of the POST')
  t.same(auth.scopes, ['read'], 'its scopes only')
  t.equal(auth.claims?.tenant, 'acme', 'the claims of the GET that opened the stream')
})
