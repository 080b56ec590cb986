// OAuth against a scripted authorization server: where metadata is looked for (RFC 8414 path
// insertion, then OpenID Connect), what makes boot fail, and what introspection sends and accepts.
import Fastify from 'fastify'
import t, { type Test } from 'tap'
import { createAuthGuard } from '../../src/auth/index.js'
import { discoveryUrls } from '../../src/auth/discovery.js'
import type { AuthFailure } from '../../src/auth/errors.js'
import { MAX_CONCURRENT_INTROSPECTIONS } from '../../src/auth/introspection.js'
import { createOAuthStrategy } from '../../src/auth/oauth.js'
import { sendAuthFailure } from '../../src/auth/strategy.js'
import type { OAuthAuthOptions } from '../../src/schemas/auth.js'
import { resolvePluginOptions } from '../../src/schemas/resolve.js'
import { assertRefused, bearer, guardApp } from '../helpers/auth-app.js'
import { makeKey, nowSeconds, signAccessToken, signHmac, signWith, type TestKey } from '../helpers/auth-keys.js'
import { startFakeAuthorizationServer, type FakeAuthorizationServer, type Scripted } from '../fixtures/auth-fake-as.js'
import { sleep, until } from '../helpers/wait.js'
import { shiftedClock } from '../helpers/clock.js'

const SECRET = 'resource-server-secret-0123456789'

async function fakeAs (t: Test): Promise<FakeAuthorizationServer> {
  const as = await startFakeAuthorizationServer()
  t.teardown(as.close)
  return as
}
const options = (issuerUrl: string, extra: Partial<OAuthAuthOptions> = {}): { type: 'oauth', options: OAuthAuthOptions } =>
  ({ type: 'oauth', options: { issuerUrl, clientId: 'rs client:1', clientSecret: SECRET, audience: 'mcp', ...extra } })

/** Boot failure of createAuthGuard, as the coded error. */
async function bootError (issuerUrl: string, extra: Partial<OAuthAuthOptions> = {}): Promise<Error & { code?: string }> {
  const auth = resolvePluginOptions({ auth: options(issuerUrl, extra) }).auth
  return await createAuthGuard(auth, { endpoints: ['/sse'] }).then(
    async (guard) => { await guard?.close(); return new Error('booted') },
    (error: unknown) => error as Error & { code?: string })
}

t.test('discovery URLs (RFC 8414 §3.1 path insertion, then OpenID Connect)', async (t) => {
  t.same(discoveryUrls('https://as.test'), ['https://as.test/.well-known/oauth-authorization-server', 'https://as.test/.well-known/openid-configuration'])
  t.same(discoveryUrls('https://as.test/tenant/1/'), [
    'https://as.test/.well-known/oauth-authorization-server/tenant/1',
    'https://as.test/tenant/1/.well-known/openid-configuration'
  ])
})

t.test('an issuer with a path: RFC 8414 location first, OpenID Connect as fallback', async (t) => {
  const as = await fakeAs(t)
  const issuer = `${as.origin}/tenant`
  as.routes.set('/tenant/.well-known/openid-configuration', { status: 200, body: { issuer, jwks_uri: `${as.origin}/jwks` } })
  await guardApp(t, options(issuer))
  t.same(as.received.map((r) => r.path), ['/.well-known/oauth-authorization-server/tenant', '/tenant/.well-known/openid-configuration'])

  as.received.length = 0
  as.routes.set('/.well-known/oauth-authorization-server/tenant', { status: 200, body: { issuer, introspection_endpoint: `${as.origin}/introspect` } })
  await guardApp(t, options(issuer))
  t.same(as.received.map((r) => r.path), ['/.well-known/oauth-authorization-server/tenant'], 'found at the first place')
})

t.test('discovery failure at boot rejects with FST_MCP_AUTH_DISCOVERY_FAILED naming the issuer, never the secret', async (t) => {
  const as = await fakeAs(t)
  const cases: Array<[string, () => void, RegExp, Partial<OAuthAuthOptions>?]> = [
    ['nothing found', () => {}, /answered 404.*answered 404/],
    ['issuer mismatch', () => as.routes.set('/.well-known/oauth-authorization-server', { status: 200, body: { issuer: 'https://evil.test', jwks_uri: `${as.origin}/jwks` } }), /names issuer https:\/\/evil\.test\/, expected/],
    ['insecure jwks_uri', () => as.routes.set('/.well-known/oauth-authorization-server', { status: 200, body: { issuer: as.origin, jwks_uri: 'http://keys.example.com/jwks' } }), /unusable jwks_uri/],
    ['no way to validate', () => as.routes.set('/.well-known/oauth-authorization-server', { status: 200, body: { issuer: as.origin } }), /neither jwks_uri nor introspection_endpoint/],
    ['not an object', () => as.routes.set('/.well-known/oauth-authorization-server', { status: 200, body: 'hello' }), /not a JSON object/],
    ['silence', () => as.routes.set('/.well-known/oauth-authorization-server', 'hang'), /did not answer within 300 ms/, { discoveryTimeoutMs: 300 }]
  ]
  for (const [name, script, reason, extra] of cases) {
    script()
    const started = Date.now()
    const error = await bootError(as.origin, extra)
    t.equal(error.code, 'FST_MCP_AUTH_DISCOVERY_FAILED', name)
    t.match(error.message, `Could not discover the OAuth authorization server of ${as.origin}/`, `${name}: names the issuer`)
    t.match(error.message, reason, `${name}: says why`)
    t.notOk(error.message.includes(SECRET), `${name}: no secret`)
    t.ok(Date.now() - started < 3000, `${name}: bounded in time`)
  }
  await as.close()
  const unreachable = await bootError(as.origin)
  t.equal(unreachable.code, 'FST_MCP_AUTH_DISCOVERY_FAILED')
  t.match(unreachable.message, /could not be reached/)
})

t.test('introspection: Basic client authentication, RFC 7662 form body, and the answer checks', async (t) => {
  const as = await fakeAs(t)
  as.routes.set('/.well-known/oauth-authorization-server', { status: 200, body: { issuer: as.origin, introspection_endpoint: `${as.origin}/introspect` } })
  const { app } = await guardApp(t, options(as.origin, { discoveryTimeoutMs: 300 }))
  const answer = (body: Record<string, unknown>): void => { as.routes.set('/introspect', { status: 200, body }) }

  answer({ active: true, sub: 'u1', scope: 'a b', exp: nowSeconds() + 60, iss: as.origin, aud: 'mcp' })
  const res = await app.inject({ url: '/sse', headers: bearer('opaque-token-1') })
  t.equal(res.statusCode, 200)
  t.same(res.json().principal.scopes, ['a', 'b'])
  t.match(res.json().principal, { kind: 'user', issuer: as.origin, subject: 'u1' })
  const call = as.received.find((r) => r.path === '/introspect')
  t.equal(call?.headers.authorization, 'Basic ' + Buffer.from(`rs+client%3A1:${SECRET}`).toString('base64'),
    'client id and secret form-encoded, then Basic (RFC 6749 §2.3.1)')
  t.equal(call?.headers['content-type'], 'application/x-www-form-urlencoded')
  t.same(Object.fromEntries(new URLSearchParams(call?.body)), { token: 'opaque-token-1', token_type_hint: 'access_token' })

  const refused: Array<[Record<string, unknown>, RegExp]> = [
    [{ active: false }, /not active/],
    [{ active: 'true', sub: 'u' }, /not active/],
    [{ active: true, sub: 'u', aud: 'mcp', exp: nowSeconds() - 60 }, /expired/],
    [{ active: true, sub: 'u', aud: 'mcp', nbf: nowSeconds() + 60 }, /not valid yet/],
    [{ active: true, sub: 'u', aud: 'mcp', iss: 'https://other.test' }, /issuer/],
    [{ active: true, sub: 'u', aud: 'other-api' }, /audience/],
    [{ active: true, sub: 'u' }, /audience/],
    [{ active: true, aud: 'mcp' }, /no subject/],
    // An expiry that is not a number is a broken answer, not "never expires".
    [{ active: true, sub: 'u', aud: 'mcp', exp: String(nowSeconds() + 60) }, /malformed time claim/],
    [{ active: true, sub: 'u', aud: 'mcp', exp: null }, /malformed time claim/],
    [{ active: true, sub: 'u', aud: 'mcp', exp: 'never' }, /malformed time claim/],
    [{ active: true, sub: 'u', aud: 'mcp', nbf: '0' }, /malformed time claim/],
    [{ active: true, sub: 'u', aud: 'mcp', iat: {} }, /malformed time claim/]
  ]
  for (const [index, [body, description]] of refused.entries()) {
    answer(body)
    const token = `opaque-refused-${index}`
    assertRefused(t, await app.inject({ url: '/sse', headers: bearer(token) }), { status: 401, error: 'invalid_token', description, secrets: [token, SECRET] })
  }

  for (const scripted of [{ status: 500, body: {} }, { status: 401, body: { error: 'invalid_client' } }, 'hang'] as const) {
    as.routes.set('/introspect', scripted)
    const token = `opaque-unavailable-${typeof scripted === 'string' ? scripted : scripted.status}`
    assertRefused(t, await app.inject({ url: '/sse', headers: bearer(token) }),
      { status: 503, error: 'temporarily_unavailable', secrets: [token, SECRET] })
  }
})

t.test('introspection calls in flight are bounded: a flood of made-up tokens is not relayed at its own rate', async (t) => {
  const as = await fakeAs(t)
  as.routes.set('/.well-known/oauth-authorization-server', { status: 200, body: { issuer: as.origin, introspection_endpoint: `${as.origin}/introspect` } })
  as.routes.set('/introspect', 'hang')
  // Long enough that the whole flood is in flight before the first hung call times out and frees
  // its slot, even on a loaded machine (with 1 s, late arrivals were admitted into freed slots).
  const { app } = await guardApp(t, options(as.origin, { discoveryTimeoutMs: 5000 }))
  const answers = await Promise.all(Array.from({ length: MAX_CONCURRENT_INTROSPECTIONS + 10 }, async (_, i) =>
    await app.inject({ url: '/sse', headers: bearer(`made-up-${i}`) })))
  t.ok(answers.every((r) => r.statusCode === 503), 'all refused with 503 (the server hangs)')
  t.equal(answers.filter((r) => /Too many tokens/.test(r.json().error_description)).length, 10, 'ten over the bound, refused at once')
  t.equal(as.count('/introspect'), MAX_CONCURRENT_INTROSPECTIONS, 'the authorization server saw the bound, no more')
})

t.test('inactive answers are cached for seconds only', async (t) => {
  const clock = shiftedClock(t)
  const as = await fakeAs(t)
  as.routes.set('/.well-known/oauth-authorization-server', { status: 200, body: { issuer: as.origin, introspection_endpoint: `${as.origin}/introspect` } })
  as.routes.set('/introspect', { status: 200, body: { active: false } })
  const { app } = await guardApp(t, options(as.origin))
  await app.inject({ url: '/sse', headers: bearer('tok') })
  await app.inject({ url: '/sse', headers: bearer('tok') })
  t.equal(as.count('/introspect'), 1)
  as.routes.set('/introspect', { status: 200, body: { active: true, sub: 'late', aud: 'mcp' } })
  clock.advance(5100)
  t.equal((await app.inject({ url: '/sse', headers: bearer('tok') })).statusCode, 200, 'asked again after 5 s')
  t.equal(as.count('/introspect'), 2)
})

t.test('JWT access tokens from the discovered key set: asymmetric, issuer, expiry', async (t) => {
  const as = await fakeAs(t)
  const key = makeKey('ES256', 'as-1')
  as.routes.set('/.well-known/oauth-authorization-server', { status: 200, body: { issuer: as.origin, jwks_uri: `${as.origin}/jwks` } })
  as.routes.set('/jwks', { status: 200, body: { keys: [key.jwk] } })
  const { app } = await guardApp(t, options(as.origin, { audience: 'mcp' }))
  const claims = { sub: 'u', iss: as.origin, aud: 'mcp', exp: nowSeconds() + 60 }
  t.equal((await app.inject({ url: '/sse', headers: bearer(signAccessToken(key, claims)) })).statusCode, 200)
  t.equal((await app.inject({ url: '/sse', headers: bearer(signAccessToken(key, claims, 'application/AT+JWT')) })).statusCode, 200,
    'the full media type, in any case')
  const cases: Array<[string, string, RegExp]> = [
    ['HMAC', signHmac(SECRET, claims), /algorithm/],
    ['no exp', signAccessToken(key, { ...claims, exp: undefined }), /no expiry/],
    ['other issuer', signAccessToken(key, { ...claims, iss: 'https://other.test' }), /issuer/],
    ['no aud', signAccessToken(key, { ...claims, aud: undefined }), /audience/],
    // RFC 9068 §4: an ID token (typ JWT) or any other JWT of the same issuer is no access token.
    ['typ JWT', signWith(key, claims), /token type/],
    ['no typ', signWith(key, claims, { header: { typ: undefined } }), /token type/],
    ['typ dpop+jwt', signAccessToken(key, claims, 'dpop+jwt'), /token type/]
  ]
  for (const [name, token, description] of cases) {
    assertRefused(t, await app.inject({ url: '/sse', headers: bearer(token) }), { status: 401, error: 'invalid_token', description, secrets: [token] })
    t.pass(name)
  }
  // No introspection endpoint: an opaque token cannot be checked.
  assertRefused(t, await app.inject({ url: '/sse', headers: bearer('opaque') }),
    { status: 401, error: 'invalid_token', description: /Opaque tokens are not accepted/, secrets: [] })
})

t.test('allowGenericJwtTyp: typ JWT (or none) accepted for providers that issue it; other types still refused', async (t) => {
  const as = await fakeAs(t)
  const key = makeKey('RS256', 'as-1')
  as.routes.set('/.well-known/oauth-authorization-server', { status: 200, body: { issuer: as.origin, jwks_uri: `${as.origin}/jwks` } })
  as.routes.set('/jwks', { status: 200, body: { keys: [key.jwk] } })
  const { app } = await guardApp(t, options(as.origin, { allowGenericJwtTyp: true }))
  const claims = { sub: 'u', iss: as.origin, aud: 'mcp', exp: nowSeconds() + 60 }
  const status = async (token: string): Promise<number> => (await app.inject({ url: '/sse', headers: bearer(token) })).statusCode
  t.equal(await status(signWith(key, claims)), 200, 'typ JWT')
  t.equal(await status(signWith(key, claims, { header: { typ: undefined } })), 200, 'no typ')
  t.equal(await status(signAccessToken(key, claims)), 200, 'at+jwt still')
  t.equal(await status(signAccessToken(key, claims, 'dpop+jwt')), 401, 'another type is not')
})

t.test('no key set published: JWT access tokens cannot be checked', async (t) => {
  const as = await fakeAs(t)
  as.routes.set('/.well-known/oauth-authorization-server', { status: 200, body: { issuer: as.origin, introspection_endpoint: `${as.origin}/introspect` } })
  const { app } = await guardApp(t, options(as.origin))
  const token = signWith(makeKey('RS256', 'k'), { sub: 'u', iss: as.origin, exp: nowSeconds() + 60 })
  assertRefused(t, await app.inject({ url: '/sse', headers: bearer(token) }),
    { status: 401, error: 'invalid_token', description: /publishes no keys/, secrets: [token] })
})

t.test('metadata is refreshed in the background; a failed refresh keeps the last good metadata', async (t) => {
  const as = await fakeAs(t)
  const [k1, k2] = [makeKey('RS256', 'k1'), makeKey('RS256', 'k2')]
  const metadata = (jwks: string): Scripted => ({ status: 200, body: { issuer: as.origin, jwks_uri: `${as.origin}${jwks}` } })
  as.routes.set('/.well-known/oauth-authorization-server', metadata('/jwks-1'))
  as.routes.set('/jwks-1', { status: 200, body: { keys: [k1.jwk] } })
  as.routes.set('/jwks-2', { status: 200, body: { keys: [k2.jwk] } })
  const controller = new AbortController()
  const auth = resolvePluginOptions({ auth: options(as.origin) }).auth
  if (auth?.type !== 'oauth') throw new Error('oauth')
  // Short timings instead of the hourly default, through the strategy itself.
  const strategy = await createOAuthStrategy(auth.options, ['/sse'], controller.signal, { maxAgeMs: 100, retryMs: 100 })
  const app = Fastify()
  app.get('/sse', {
    onRequest: async (request, reply) => {
      try {
        request.mcpPrincipal = await strategy.authenticate(request)
      } catch (error) {
        return sendAuthFailure(reply, error as AuthFailure, strategy.challenge(request, error as AuthFailure))
      }
    }
  }, async (request) => ({ principal: request.mcpPrincipal }))
  t.teardown(async () => { controller.abort(); strategy.close(); await app.close() })
  const status = async (key: TestKey, sub: string): Promise<number> =>
    (await app.inject({ url: '/sse', headers: bearer(signAccessToken(key, { sub, iss: as.origin, aud: 'mcp', exp: nowSeconds() + 60 })) })).statusCode

  t.equal(await status(k1, 'a'), 200)
  const discovered = as.count('/.well-known/oauth-authorization-server')
  // The issuer moves its key set; old metadata serves until the background refresh lands.
  as.routes.set('/.well-known/oauth-authorization-server', metadata('/jwks-2'))
  await sleep(150)
  t.equal(await status(k1, 'b'), 200, 'answered with the old metadata while refreshing')
  await until(() => as.count('/.well-known/oauth-authorization-server') === discovered + 1, { timeoutMs: 3000, what: 'the next discovery' })
  await sleep(50)
  t.equal(await status(k2, 'c'), 200, 'the new key set is used after the refresh')
  t.equal(await status(k1, 'd'), 401, 'the old one is not')

  // Discovery breaks: the last good metadata stays in use.
  as.routes.set('/.well-known/oauth-authorization-server', { status: 500, body: {} })
  await sleep(150)
  t.equal(await status(k2, 'e'), 200)
  await until(() => as.count('/.well-known/oauth-authorization-server') === discovered + 2, { timeoutMs: 3000, what: 'the next discovery' })
  await sleep(50)
  t.equal(await status(k2, 'f'), 200, 'a failed refresh changes nothing')
})
