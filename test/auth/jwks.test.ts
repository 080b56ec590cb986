// JWT auth against a JSON Web Key Set on loopback: keys chosen by kid, rotation without restart,
// a cooldown that bounds refetches under a flood of unknown kids, and failures of the key server.
import { randomUUID } from 'node:crypto'
import t, { type Test } from 'tap'
import { assertRefused, bearer, guardApp } from '../helpers/auth-app.js'
import { makeKey, nowSeconds, signWith, startJwksServer, type JwksServer, type TestKey } from '../helpers/auth-keys.js'
import { shiftedClock } from '../helpers/clock.js'

/**
 * A little over the client's refetch cooldown (2 s), measured on Date.now: each test moves its clock
 * (helpers/clock.ts) rather than sleeping through it.
 */
const COOLDOWN = 2100

async function jwksApp (t: Test, server: JwksServer, algorithms: Array<'RS256' | 'RS384' | 'ES256'> = ['RS256']): ReturnType<typeof guardApp> {
  return await guardApp(t, { type: 'jwt', options: { jwksUri: server.url, algorithms, issuer: 'https://idp.test' } })
}
const claims = (sub: string): Record<string, unknown> => ({ sub, iss: 'https://idp.test', exp: nowSeconds() + 300 })

t.test('keys rotate without restart: an unknown kid refetches the set, at most once per cooldown', async (t) => {
  const clock = shiftedClock(t)
  const k1 = makeKey('RS256', 'k1')
  const k2 = makeKey('RS256', 'k2')
  const server = await startJwksServer([k1])
  t.teardown(server.close)
  const { app } = await jwksApp(t, server)

  const first = signWith(k1, claims('alice'))
  const res = await app.inject({ url: '/sse', headers: bearer(first) })
  t.equal(res.statusCode, 200)
  t.match(res.json().principal, { issuer: 'https://idp.test', subject: 'alice' })
  t.equal(server.requests, 1, 'the set was fetched once')
  t.equal((await app.inject({ url: '/sse', headers: bearer(signWith(k1, claims('bob'))) })).statusCode, 200)
  t.equal(server.requests, 1, 'a known kid needs no fetch')

  // The issuer rotates: k2 replaces k1.
  server.keys = [k2]
  const rotated = signWith(k2, claims('alice'))
  const early = await app.inject({ url: '/sse', headers: bearer(rotated) })
  assertRefused(t, early, { status: 401, error: 'invalid_token', description: /signing key is unknown/, secrets: [rotated] })
  t.equal(server.requests, 1, 'within the cooldown of the last fetch, an unknown kid does not refetch')

  clock.advance(COOLDOWN)
  t.equal((await app.inject({ url: '/sse', headers: bearer(rotated) })).statusCode, 200, 'accepted after the refetch')
  t.equal(server.requests, 2)

  // The withdrawn key stops verifying new tokens at once; a token verified before stays cached.
  const stale = signWith(k1, claims('carol'))
  assertRefused(t, await app.inject({ url: '/sse', headers: bearer(stale) }),
    { status: 401, error: 'invalid_token', description: /unknown/, secrets: [stale] })
  t.equal((await app.inject({ url: '/sse', headers: bearer(first) })).statusCode, 200, 'served from the verified-token cache')
})

t.test('a flood of unknown kids costs at most one fetch per cooldown', async (t) => {
  const clock = shiftedClock(t)
  const k1 = makeKey('ES256', 'k1')
  const server = await startJwksServer([k1])
  t.teardown(server.close)
  const { app } = await jwksApp(t, server, ['ES256'])
  t.equal((await app.inject({ url: '/sse', headers: bearer(signWith(k1, claims('a'))) })).statusCode, 200)
  clock.advance(COOLDOWN)

  for (let round = 0; round < 2; round++) {
    const before = server.requests
    const answers = await Promise.all(Array.from({ length: 100 }, async () =>
      await app.inject({ url: '/sse', headers: bearer(signWith(k1, claims('x'), { kid: randomUUID() })) })))
    t.ok(answers.every((r) => r.statusCode === 401), `round ${round}: every unknown kid refused`)
    // The cooldown has passed: the first unknown kid refetches, the 99 others wait for it or are refused.
    t.equal(server.requests - before, 1, `round ${round}: one fetch for 100 unknown kids`)
    t.equal((await app.inject({ url: '/sse', headers: bearer(signWith(k1, claims('b'))) })).statusCode, 200,
      'the known key keeps working')
    clock.advance(COOLDOWN)
  }
})

t.test('key server down at first use: 503 with Retry-After, then recovery', async (t) => {
  const clock = shiftedClock(t)
  const k1 = makeKey('RS256', 'k1')
  const server = await startJwksServer([k1])
  t.teardown(server.close)
  const { app } = await jwksApp(t, server)
  const token = signWith(k1, claims('a'))
  for (const mode of ['down', 'garbage', 'huge', 'redirect'] as const) {
    server.mode = mode
    const res = await app.inject({ url: '/sse', headers: bearer(token) })
    assertRefused(t, res, { status: 503, error: 'temporarily_unavailable', description: /retry later/, secrets: [token] })
    t.equal(res.headers['retry-after'], '5')
    t.notOk('www-authenticate' in res.headers, `${mode}: no challenge: the token is not at fault`)
    clock.advance(COOLDOWN)
  }
  server.mode = 'ok'
  t.equal((await app.inject({ url: '/sse', headers: bearer(token) })).statusCode, 200)
})

t.test('a failed refetch keeps the keys already known', async (t) => {
  const clock = shiftedClock(t)
  const k1 = makeKey('RS256', 'k1')
  const server = await startJwksServer([k1])
  t.teardown(server.close)
  const { app } = await jwksApp(t, server)
  t.equal((await app.inject({ url: '/sse', headers: bearer(signWith(k1, claims('a'))) })).statusCode, 200)
  server.mode = 'down'
  clock.advance(COOLDOWN)
  const unknown = await app.inject({ url: '/sse', headers: bearer(signWith(k1, claims('a'), { kid: 'nope' })) })
  t.equal(unknown.statusCode, 401, 'unknown kid: 401 (the set is known, just old)')
  t.equal(server.requests, 2, 'the refetch was tried')
  t.equal((await app.inject({ url: '/sse', headers: bearer(signWith(k1, claims('b'))) })).statusCode, 200, 'k1 still verifies')
})

t.test('a token without kid: accepted when the set has one key, refused when it is ambiguous', async (t) => {
  const clock = shiftedClock(t)
  const k1 = makeKey('RS256', 'k1')
  const k2 = makeKey('RS256', 'k2')
  const server = await startJwksServer([k1])
  t.teardown(server.close)
  const { app } = await jwksApp(t, server)
  t.equal((await app.inject({ url: '/sse', headers: bearer(signWith(k1, claims('a'), { kid: null })) })).statusCode, 200)
  server.keys = [k1, k2]
  clock.advance(COOLDOWN)
  await app.inject({ url: '/sse', headers: bearer(signWith(k2, claims('a'))) }) // refetch: two keys now
  const res = await app.inject({ url: '/sse', headers: bearer(signWith(k2, claims('b'), { kid: null })) })
  assertRefused(t, res, { status: 401, error: 'invalid_token', description: /unknown/, secrets: [] })
})

t.test('a JWK bound to one alg (its "alg" member) verifies that alg only; encryption keys and junk are skipped', async (t) => {
  const k1 = makeKey('RS256', 'k1')
  const enc = makeKey('RS256', 'enc')
  enc.jwk = { ...enc.jwk, use: 'enc' }
  const junk = { jwk: { kid: 'junk', kty: 'RSA', n: '!!' } } as unknown as TestKey
  const oct = { jwk: { kid: 'oct', kty: 'oct', k: 'c2VjcmV0' } } as unknown as TestKey
  const server = await startJwksServer([junk, oct, k1, enc])
  t.teardown(server.close)
  const { app } = await jwksApp(t, server, ['RS256', 'RS384'])
  const rs384 = { ...k1, alg: 'RS384' as const }
  const res = await app.inject({ url: '/sse', headers: bearer(signWith(rs384 as never, claims('a'))) })
  assertRefused(t, res, { status: 401, error: 'invalid_token', description: /does not match its algorithm/, secrets: [] })
  const encrypted = await app.inject({ url: '/sse', headers: bearer(signWith(enc, claims('a'))) })
  t.equal(encrypted.statusCode, 401, 'a key with use "enc" never verifies')
  t.equal((await app.inject({ url: '/sse', headers: bearer(signWith(k1, claims('a'))) })).statusCode, 200)
})
