// JWT auth with a shared secret or a fixed public key: what a valid token proves (the principal),
// the challenge formats, clock tolerance and the verified-token cache.
import t from 'tap'
import { createAuthGuard } from '../../src/auth/index.js'
import { TokenCache } from '../../src/auth/token-cache.js'
import { resolvePluginOptions } from '../../src/schemas/resolve.js'
import { assertRefused, bearer, guardApp } from '../helpers/auth-app.js'
import { forge, makeKey, nowSeconds, signHmac, signWith, type AsymmetricAlg } from '../helpers/auth-keys.js'
import { shiftedClock } from '../helpers/clock.js'

const SECRET = 'a-shared-secret-of-at-least-32-bytes-0123456789'
const ISSUER = 'https://issuer.example.test'

t.test('HS256 secret: the principal carries subject, scopes, claims and expiry', async (t) => {
  const { app } = await guardApp(t, { type: 'jwt', options: { secret: SECRET, algorithms: ['HS256'], issuer: ISSUER, audience: 'mcp' } })
  const exp = nowSeconds() + 600
  const token = signHmac(SECRET, { sub: 'alice', iss: ISSUER, aud: 'mcp', exp, scope: 'tools:call  resources:read', tenant: 't1' })
  const res = await app.inject({ url: '/sse', headers: bearer(token) })
  t.equal(res.statusCode, 200)
  t.same(res.json().principal, {
    method: 'jwt',
    kind: 'user',
    issuer: ISSUER,
    subject: 'alice',
    scopes: ['tools:call', 'resources:read'],
    claims: { sub: 'alice', iss: ISSUER, aud: 'mcp', exp, scope: 'tools:call  resources:read', tenant: 't1' },
    expiresAt: exp * 1000
  })
  // The scheme name is case-insensitive (RFC 7235).
  const lower = await app.inject({ method: 'POST', url: '/messages', headers: { authorization: `bearer ${token}` }, payload: {} })
  t.equal(lower.statusCode, 200)
  // A route of the user's own is not guarded and gets no principal.
  const open = await app.inject({ url: '/open' })
  t.same(open.json(), { principal: null })
})

t.test('HS384 and HS512 when allowed; a token without iss has no issuer; scp lists scopes', async (t) => {
  const { app } = await guardApp(t, { type: 'jwt', options: { secret: SECRET, algorithms: ['HS384', 'HS512'], requireExp: false } })
  for (const alg of ['HS384', 'HS512'] as const) {
    const res = await app.inject({ url: '/sse', headers: bearer(signHmac(SECRET, { sub: 'bob', scp: ['a', 'b', 3] }, alg)) })
    t.equal(res.statusCode, 200, alg)
    t.equal(res.json().principal.subject, 'bob')
    t.notOk('issuer' in res.json().principal, 'no iss, no issuer')
    t.same(res.json().principal.scopes, ['a', 'b'])
    t.notOk('expiresAt' in res.json().principal, 'no exp, no expiresAt')
  }
  const hs256 = await app.inject({ url: '/sse', headers: bearer(signHmac(SECRET, { sub: 'bob' }, 'HS256')) })
  assertRefused(t, hs256, { status: 401, error: 'invalid_token', description: /algorithm/, secrets: [SECRET] })
})

t.test('a token without exp is refused unless requireExp is false', async (t) => {
  const token = signHmac(SECRET, { sub: 'forever' })
  const strict = await guardApp(t, { type: 'jwt', options: { secret: SECRET, algorithms: ['HS256'] } })
  assertRefused(t, await strict.app.inject({ url: '/sse', headers: bearer(token) }),
    { status: 401, error: 'invalid_token', description: /^The token has no expiry$/, secrets: [SECRET, token] })
  const lenient = await guardApp(t, { type: 'jwt', options: { secret: SECRET, algorithms: ['HS256'], requireExp: false } })
  const res = await lenient.app.inject({ url: '/sse', headers: bearer(token) })
  t.equal(res.statusCode, 200, 'allowed when configured')
  t.notOk('expiresAt' in res.json().principal)
})

t.test('a client_id stands in for a missing sub, as a client identity; a token with neither is refused', async (t) => {
  const { app } = await guardApp(t, { type: 'jwt', options: { secret: SECRET, algorithms: ['HS256'] } })
  const client = await app.inject({ url: '/sse', headers: bearer(signHmac(SECRET, { client_id: 'svc', iss: 'x', exp: nowSeconds() + 60 })) })
  t.match(client.json().principal, { kind: 'client', issuer: 'x', subject: 'svc' })
  const token = signHmac(SECRET, { iss: 'x', exp: nowSeconds() + 60 })
  assertRefused(t, await app.inject({ url: '/sse', headers: bearer(token) }),
    { status: 401, error: 'invalid_token', description: /no subject/, secrets: [SECRET, token] })
})

for (const alg of ['RS256', 'PS256', 'ES256', 'ES384', 'EdDSA'] as AsymmetricAlg[]) {
  t.test(`publicKey + ${alg}`, async (t) => {
    const key = makeKey(alg, 'k1')
    const { app } = await guardApp(t, { type: 'jwt', options: { publicKey: key.publicPem, algorithms: [alg], issuer: ISSUER } })
    const res = await app.inject({ url: '/sse', headers: bearer(signWith(key, { sub: 'carol', iss: ISSUER, exp: nowSeconds() + 60 }, { kid: null })) })
    t.equal(res.statusCode, 200)
    t.match(res.json().principal, { issuer: ISSUER, subject: 'carol' })
    // Another key of the same type: a valid signature, but not by our key.
    const other = makeKey(alg, 'k2')
    const forged = signWith(other, { sub: 'carol', iss: ISSUER, exp: nowSeconds() + 60 })
    assertRefused(t, await app.inject({ url: '/sse', headers: bearer(forged) }),
      { status: 401, error: 'invalid_token', description: /signature/, secrets: [forged] })
  })
}

t.test('a public key of one family does not verify another family\'s algorithm', async (t) => {
  const ec = makeKey('ES256', 'ec')
  const { app } = await guardApp(t, { type: 'jwt', options: { publicKey: ec.publicPem, algorithms: ['ES256', 'RS256'] } })
  const rsa = makeKey('RS256', 'rsa')
  const res = await app.inject({ url: '/sse', headers: bearer(signWith(rsa, { sub: 'x' })) })
  assertRefused(t, res, { status: 401, error: 'invalid_token', description: /does not match/, secrets: [] })
})

t.test('challenges: missing credential, another scheme, malformed header', async (t) => {
  const { app } = await guardApp(t, { type: 'jwt', options: { secret: SECRET, algorithms: ['HS256'] } })
  const missing = await app.inject({ url: '/sse' })
  assertRefused(t, missing, { status: 401, error: 'invalid_token', description: /Missing credential/, secrets: [SECRET] })
  // RFC 6750 §3.1: no credential at all gets a bare challenge, without an error code.
  t.equal(missing.headers['www-authenticate'], 'Bearer realm="mcp"')
  t.equal(missing.headers['cache-control'], 'no-store')

  const basic = await app.inject({ url: '/sse', headers: { authorization: 'Basic dXNlcjpwYXNz' } })
  t.equal(basic.statusCode, 401)
  t.equal(basic.headers['www-authenticate'], 'Bearer realm="mcp"')

  for (const header of ['Bearer', 'Bearer ', 'Bearer a b', 'Bearer ab"c', 'Bearer é']) {
    const res = await app.inject({ url: '/sse', headers: { authorization: header } })
    assertRefused(t, res, { status: 400, error: 'invalid_request', description: /malformed/, secrets: [] })
    t.match(res.headers['www-authenticate'], /^Bearer realm="mcp", error="invalid_request", error_description="[^"]+"$/)
  }

  const invalid = await app.inject({ url: '/sse', headers: bearer('not.a.jwt') })
  assertRefused(t, invalid, { status: 401, error: 'invalid_token', description: /malformed/, secrets: [] })
  t.equal(invalid.headers['www-authenticate'], 'Bearer realm="mcp", error="invalid_token", error_description="The token is malformed"')
})

t.test('exp and nbf honour clockToleranceSeconds', async (t) => {
  const { app } = await guardApp(t, { type: 'jwt', options: { secret: SECRET, algorithms: ['HS256'], clockToleranceSeconds: 30 } })
  const ok = async (claims: Record<string, unknown>): Promise<number> =>
    (await app.inject({ url: '/sse', headers: bearer(signHmac(SECRET, { sub: 's', ...claims })) })).statusCode
  t.equal(await ok({ exp: nowSeconds() - 10 }), 200, 'expired 10 s ago, within 30 s tolerance')
  t.equal(await ok({ exp: nowSeconds() - 60 }), 401, 'expired 60 s ago')
  t.equal(await ok({ nbf: nowSeconds() + 10, exp: nowSeconds() + 600 }), 200, 'valid in 10 s, within tolerance')
  t.equal(await ok({ nbf: nowSeconds() + 60, exp: nowSeconds() + 600 }), 401, 'valid in 60 s')
  const oddExp = forge({ alg: 'HS256', typ: 'JWT' }, { sub: 's', exp: 'tomorrow' }, SECRET)
  t.equal((await app.inject({ url: '/sse', headers: bearer(oddExp) })).json().error_description,
    'The token has a malformed time claim')
})

t.test('a cached token stops being accepted at its exp', async (t) => {
  const clock = shiftedClock(t)
  const { app } = await guardApp(t, { type: 'jwt', options: { secret: SECRET, algorithms: ['HS256'], clockToleranceSeconds: 0 } })
  const token = signHmac(SECRET, { sub: 's', exp: nowSeconds() + 2 })
  t.equal((await app.inject({ url: '/sse', headers: bearer(token) })).statusCode, 200)
  t.equal((await app.inject({ url: '/sse', headers: bearer(token) })).statusCode, 200, 'served again (from cache)')
  clock.advance(3100)
  const late = await app.inject({ url: '/sse', headers: bearer(token) })
  assertRefused(t, late, { status: 401, error: 'invalid_token', description: /expired/, secrets: [token] })
})

t.test('TokenCache: expiry, size bound, disabled', async (t) => {
  const cache = new TokenCache<number>(2)
  const now = 1_000
  cache.set('a', 1, now + 10, now)
  cache.set('b', 2, now + 10, now)
  cache.set('c', 3, now + 10, now)
  t.equal(cache.size, 2, 'bounded')
  t.equal(cache.get('a', now), undefined, 'the oldest was evicted')
  t.equal(cache.get('c', now), 3)
  t.equal(cache.get('c', now + 10), undefined, 'expired at its time')
  t.equal(cache.size, 1, 'an expired entry is dropped when read')
  cache.set('d', 4, now - 1, now)
  t.equal(cache.get('d', now), undefined, 'an entry already expired is not stored')
  cache.delete('b')
  t.equal(cache.size, 0)
  const off = new TokenCache<number>(0)
  off.set('a', 1, now + 10, now)
  t.equal(off.get('a', now), undefined, 'size 0 stores nothing')
  t.equal(TokenCache.key('token').length, 44, 'keys are SHA-256 digests')
  t.not(TokenCache.key('token'), 'token')
})

t.test('a public key that does not parse fails at boot without showing it', async (t) => {
  const pem = '-----BEGIN PUBLIC KEY-----\nnot-a-key-material-zzz\n-----END PUBLIC KEY-----'
  const auth = resolvePluginOptions({ auth: { type: 'jwt', options: { publicKey: pem, algorithms: ['RS256'] } } }).auth
  const error = await createAuthGuard(auth, { endpoints: ['/sse'] }).then(() => undefined, (e: unknown) => e as Error & { code: string })
  t.equal(error?.code, 'FST_MCP_INVALID_OPTIONS')
  t.match(error?.message, /auth\.options\.publicKey/)
  t.notOk(error?.message.includes('not-a-key-material'), 'the key is not echoed')
})

t.test('no auth configured: no guard', async (t) => {
  t.equal(await createAuthGuard(undefined, { endpoints: [] }), undefined)
})
