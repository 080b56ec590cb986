// The attack suite: forged, replayed, misplaced and oversized credentials. Each is refused with
// the right status and RFC 6750 body, and no answer ever contains a secret, a key or the token.
import t from 'tap'
import { assertRefused, bearer, guardApp } from '../helpers/auth-app.js'
import { b64url, forge, makeKey, nowSeconds, signHmac, signWith, startJwksServer } from '../helpers/auth-keys.js'
import { MCP_RESOURCE, SERVER_CLIENT_ID, SERVER_CLIENT_SECRET, startAuthorizationServer } from '../fixtures/auth-oidc.js'

const ISSUER = 'https://issuer.example.test'
const AUDIENCE = 'mcp-server'
const key = makeKey('RS256', 'k1')
const valid = (extra: Record<string, unknown> = {}): Record<string, unknown> =>
  ({ sub: 'alice', iss: ISSUER, aud: AUDIENCE, exp: nowSeconds() + 300, ...extra })

t.test('JWT forgeries against a public key with issuer and audience', async (t) => {
  const { app } = await guardApp(t, {
    type: 'jwt',
    options: { publicKey: key.publicPem, algorithms: ['RS256'], issuer: ISSUER, audience: AUDIENCE, clockToleranceSeconds: 0, maxTokenBytes: 2048 }
  })
  const good = signWith(key, valid())
  t.equal((await app.inject({ url: '/sse', headers: bearer(good) })).statusCode, 200, 'the genuine token passes')
  const [header, payload, signature] = good.split('.') as [string, string, string]
  const attacker = makeKey('RS256', 'k1')

  const attacks: Array<[string, string, RegExp]> = [
    ['alg none', forge({ alg: 'none', typ: 'JWT' }, valid()), /algorithm/],
    ['alg None', forge({ alg: 'None' }, valid()), /algorithm/],
    ['alg none with a signature', `${b64url({ alg: 'none' })}.${payload}.${signature}`, /algorithm/],
    ['HS256 signed with the RSA public key (algorithm confusion)', forge({ alg: 'HS256', typ: 'JWT' }, valid(), key.publicPem), /algorithm/],
    ['expired', signWith(key, valid({ exp: nowSeconds() - 10 })), /expired/],
    ['not yet valid', signWith(key, valid({ nbf: nowSeconds() + 60 })), /not valid yet/],
    ['wrong issuer', signWith(key, valid({ iss: 'https://evil.example.test' })), /issuer/],
    ['no issuer', signWith(key, valid({ iss: undefined })), /issuer/],
    ['wrong audience', signWith(key, valid({ aud: 'another-service' })), /audience/],
    ['audience list without ours', signWith(key, valid({ aud: ['a', 'b'] })), /audience/],
    ['tampered payload', `${header}.${b64url(valid({ sub: 'admin' }))}.${signature}`, /signature/],
    ['signature stripped', `${header}.${payload}.`, /signature/],
    ['signature of another token', `${header}.${payload}.${signWith(key, valid({ sub: 'bob' })).split('.')[2] ?? ''}`, /signature/],
    ['signed by another key with the same kid', signWith(attacker, valid()), /signature/],
    ['embedded jwk header (the attacker\'s key)', signWith(attacker, valid(), { header: { jwk: attacker.jwk } }), /signature/],
    ['jku header (the attacker\'s key set)', signWith(attacker, valid(), { header: { jku: 'http://127.0.0.1:9/jwks' } }), /signature/],
    ['unsupported critical header', signWith(key, valid(), { header: { crit: ['exp-ext'], 'exp-ext': 1 } }), /critical/],
    ['header that is not JSON', `${Buffer.from('{alg:').toString('base64url')}.${payload}.${signature}`, /malformed/],
    ['payload that is not an object', `${header}.${Buffer.from('"x"').toString('base64url')}.${signature}`, /malformed|signature/],
    ['two segments', `${header}.${payload}`, /malformed/],
    ['oversized token', signWith(key, valid({ pad: 'x'.repeat(3000) })), /larger than 2048 bytes/]
  ]
  for (const [name, token, description] of attacks) {
    const res = await app.inject({ url: '/sse', headers: bearer(token) })
    assertRefused(t, res, { status: 401, error: 'invalid_token', description, secrets: [token, signature] })
    t.match(res.headers['www-authenticate'], /^Bearer realm="mcp", error="invalid_token", error_description="[^"]+"$/, name)
  }

  // RFC 6750 §5.3: never from the query string, with or without a header.
  for (const url of [`/sse?access_token=${good}`, `/sse?x=1&access_token=${good}`]) {
    const res = await app.inject({ url })
    assertRefused(t, res, { status: 400, error: 'invalid_request', description: /query string/, secrets: [good] })
    const both = await app.inject({ url, headers: bearer(good) })
    assertRefused(t, both, { status: 400, error: 'invalid_request', secrets: [good] })
  }
})

t.test('HMAC: algorithm downgrade and a guessed secret', async (t) => {
  const secret = 'the-real-shared-secret-0123456789abcdef'
  const { app } = await guardApp(t, { type: 'jwt', options: { secret, algorithms: ['HS512'] } })
  for (const token of [signHmac(secret, { sub: 'a' }, 'HS256'), signHmac('a-guessed-secret-0123456789abcdefghij', { sub: 'a' }, 'HS512')]) {
    assertRefused(t, await app.inject({ url: '/sse', headers: bearer(token) }),
      { status: 401, error: 'invalid_token', secrets: [token, secret] })
  }
})

t.test('key set: unknown kid, kid injection, jku pointing elsewhere', async (t) => {
  const jwks = await startJwksServer([key])
  const evil = await startJwksServer([makeKey('RS256', 'evil')])
  t.teardown(async () => { await jwks.close(); await evil.close() })
  const { app } = await guardApp(t, { type: 'jwt', options: { jwksUri: jwks.url, algorithms: ['RS256'] } })
  const attacker = evil.keys[0]
  if (attacker === undefined) throw new Error('no key')
  t.equal((await app.inject({ url: '/sse', headers: bearer(signWith(key, valid())) })).statusCode, 200)
  const attacks: Array<[string, string]> = [
    ['unknown kid', signWith(attacker, valid())],
    ['kid path traversal', signWith(attacker, valid(), { kid: '../../../../etc/passwd' })],
    ['kid injection', signWith(attacker, valid(), { kid: "' OR '1'='1" })],
    ['jku to the attacker\'s key set', signWith(attacker, valid(), { header: { jku: evil.url } })],
    ['x5u to the attacker\'s key set', signWith(attacker, valid(), { header: { x5u: evil.url } })]
  ]
  for (const [name, token] of attacks) {
    const res = await app.inject({ url: '/sse', headers: bearer(token) })
    assertRefused(t, res, { status: 401, error: 'invalid_token', description: /unknown|signature/, secrets: [token] })
    t.pass(name)
  }
  t.equal(evil.requests, 0, 'the key set named in the token header was never contacted')
})

t.test('API keys: the query string when not configured, wrong keys of every length', async (t) => {
  const keys = ['api-key-0123456789abcdef0123456789', 'api-key-second-one-0123456789abcdef']
  const { app } = await guardApp(t, { type: 'apikey', options: { keys } })
  for (const url of [`/sse?api_key=${keys[0]}`, `/sse?X-API-Key=${keys[0]}`, `/sse?access_token=${keys[0]}`]) {
    assertRefused(t, await app.inject({ url }), { status: 401, error: 'invalid_token', description: /Missing API key/, secrets: keys })
  }
  const real = keys[0] ?? ''
  const wrong = [
    real.slice(0, -1) + (real.endsWith('9') ? '8' : '9'), // right length, last character off
    'x'.repeat(real.length), // right length
    real.slice(0, 8), // a prefix
    real + real, // longer
    'Bearer ' + real // another scheme's shape
  ]
  for (const presented of wrong) {
    const res = await app.inject({ url: '/sse', headers: { 'x-api-key': presented } })
    assertRefused(t, res, { status: 401, error: 'invalid_token', description: /^Invalid API key$/, secrets: [...keys, presented] })
  }
  const bearerKey = await app.inject({ url: '/sse', headers: bearer(real) })
  t.equal(bearerKey.statusCode, 401, 'an API key is not accepted as a bearer token')
})

t.test('OAuth: missing scope is 403; a token for another resource is 401', async (t) => {
  const as = await startAuthorizationServer()
  t.teardown(as.close)
  const { app } = await guardApp(t, {
    type: 'oauth',
    options: { issuerUrl: as.issuer, clientId: SERVER_CLIENT_ID, clientSecret: SERVER_CLIENT_SECRET, audience: MCP_RESOURCE, scopes: ['mcp:write'] }
  })
  for (const client of ['jwt-client', 'opaque-client'] as const) {
    const token = await as.token(client, { scope: 'mcp:read' })
    const res = await app.inject({ url: '/sse', headers: bearer(token) })
    assertRefused(t, res, { status: 403, error: 'insufficient_scope', secrets: [token, SERVER_CLIENT_SECRET] })
    t.match(res.headers['www-authenticate'], /error="insufficient_scope".*scope="mcp:write"/)
  }
})
