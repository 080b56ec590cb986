// API keys: where a key is accepted, the principal it yields (a fingerprint, never the key), the
// challenge, and that keys stay out of answers and request logs.
import { createHash } from 'node:crypto'
import { Writable } from 'node:stream'
import t from 'tap'
import { keyFingerprint, redactQueryParam } from '../src/auth/index.js'
import { assertRefused, guardApp, wholeAnswer } from './helpers/auth-app.js'

const KEY_A = 'key-a-0123456789abcdef0123456789'
const KEY_B = 'key-b-fedcba9876543210fedcba9876'
const KEYS = [KEY_A, KEY_B]

t.test('header X-API-Key by default: principal per key, with fingerprint and index only', async (t) => {
  const { app } = await guardApp(t, { type: 'apikey', options: { keys: KEYS } })
  for (const [index, key] of KEYS.entries()) {
    const res = await app.inject({ url: '/sse', headers: { 'x-api-key': key } })
    t.equal(res.statusCode, 200)
    const fingerprint = createHash('sha256').update(key).digest('hex').slice(0, 12)
    t.same(res.json().principal, {
      method: 'apikey', kind: 'key', subject: `apikey:${fingerprint}`, scopes: [], claims: {}, keyIndex: index, keyFingerprint: fingerprint
    })
    t.equal(keyFingerprint(key), fingerprint)
    t.notOk(wholeAnswer(res).includes(key), 'the principal does not carry the key')
  }
  // Header names are case-insensitive.
  t.equal((await app.inject({ url: '/sse', headers: { 'X-Api-Key': KEY_A } })).statusCode, 200)
})

t.test('missing and wrong keys: 401 with the ApiKey challenge, nothing echoed', async (t) => {
  const { app } = await guardApp(t, { type: 'apikey', options: { keys: KEYS } })
  const missing = await app.inject({ url: '/sse' })
  assertRefused(t, missing, { status: 401, error: 'invalid_token', description: /X-API-Key header/, secrets: KEYS })
  t.equal(missing.headers['www-authenticate'], 'ApiKey realm="mcp", header="X-API-Key"')

  // The same length as a real key (one character off), shorter, longer, a prefix, empty.
  const wrong = [KEY_A.slice(0, -1) + 'x', 'short-key', KEY_A + KEY_B, KEY_A.slice(0, 20), KEY_A + ' ']
  for (const key of wrong) {
    const res = await app.inject({ url: '/sse', headers: { 'x-api-key': key } })
    assertRefused(t, res, { status: 401, error: 'invalid_token', description: /^Invalid API key$/, secrets: [...KEYS, key] })
    t.equal(res.headers['www-authenticate'],
      'ApiKey realm="mcp", header="X-API-Key", error="invalid_token", error_description="Invalid API key"')
  }
  const empty = await app.inject({ url: '/sse', headers: { 'x-api-key': '' } })
  t.equal(empty.statusCode, 401)
  t.equal(empty.headers['www-authenticate'], 'ApiKey realm="mcp", header="X-API-Key"', 'an empty header is no key')
})

t.test('a key in the query string is ignored unless queryParam is configured', async (t) => {
  const { app } = await guardApp(t, { type: 'apikey', options: { keys: KEYS } })
  for (const name of ['api_key', 'apikey', 'key', 'X-API-Key']) {
    const res = await app.inject({ url: `/sse?${name}=${KEY_A}` })
    assertRefused(t, res, { status: 401, error: 'invalid_token', description: /Missing API key/, secrets: KEYS })
  }
})

t.test('queryParam configured: the key may come from the query; one place only; one key only', async (t) => {
  const { app } = await guardApp(t, { type: 'apikey', options: { keys: KEYS, headerName: 'X-MCP-Key', queryParam: 'api_key' } })
  const res = await app.inject({ url: `/sse?api_key=${KEY_B}` })
  t.equal(res.statusCode, 200)
  t.equal(res.json().principal.keyIndex, 1)
  t.equal((await app.inject({ url: '/sse', headers: { 'x-mcp-key': KEY_A } })).statusCode, 200)
  t.equal((await app.inject({ url: '/sse', headers: { 'x-api-key': KEY_A } })).statusCode, 401, 'the default header no longer counts')

  const missing = await app.inject({ url: '/sse' })
  t.equal(missing.headers['www-authenticate'], 'ApiKey realm="mcp", header="X-MCP-Key", query="api_key"')
  t.match(missing.json().error_description, /X-MCP-Key header or the api_key query parameter/)

  const both = await app.inject({ url: `/sse?api_key=${KEY_A}`, headers: { 'x-mcp-key': KEY_A } })
  assertRefused(t, both, { status: 400, error: 'invalid_request', description: /one place only/, secrets: KEYS })
  const twice = await app.inject({ url: `/sse?api_key=${KEY_A}&api_key=${KEY_B}` })
  assertRefused(t, twice, { status: 400, error: 'invalid_request', description: /exactly one/, secrets: KEYS })
  const wrong = await app.inject({ url: '/sse?api_key=not-the-right-key-at-all' })
  assertRefused(t, wrong, { status: 401, error: 'invalid_token', secrets: [...KEYS, 'not-the-right-key-at-all'] })
})

t.test('request logs never show a key sent in the query string', async (t) => {
  const lines: string[] = []
  const stream = new Writable({ write (chunk, _enc, done) { lines.push(String(chunk)); done() } })
  const { app, guard } = await guardApp(t, { type: 'apikey', options: { keys: KEYS, queryParam: 'api_key' } },
    { logger: { level: 'trace', stream } })
  await app.inject({ url: `/sse?api_key=${KEY_A}&x=1` })
  await app.inject({ url: `/sse?api_key=wrong-${KEY_B}` })
  await app.inject({ url: `/sse?apikey=${KEY_B}` })
  await app.inject({ url: '/sse', headers: { 'x-api-key': 'header-key-not-logged-anyway' } })
  const log = lines.join('')
  t.ok(lines.length >= 8, 'requests were logged')
  t.match(log, /"url":"\/sse\?api_key=\[REDACTED\]&x=1"/)
  for (const secret of [...KEYS, 'header-key-not-logged-anyway']) t.notOk(log.includes(secret), 'no key in the log')
  t.equal(guard.redactUrl(`/sse?a=1&api_key=${KEY_A}`), '/sse?a=1&api_key=[REDACTED]')
})

t.test('redactQueryParam', async (t) => {
  t.equal(redactQueryParam('/sse', 'k'), '/sse')
  t.equal(redactQueryParam('/sse?k=1&k=2&kk=3', 'k'), '/sse?k=[REDACTED]&k=[REDACTED]&kk=3')
  t.equal(redactQueryParam('/sse?%6B=secret', 'k'), '/sse?%6B=[REDACTED]', 'a percent-encoded name')
  t.equal(redactQueryParam('/sse?k', 'k'), '/sse?k=[REDACTED]')
  t.equal(redactQueryParam('/sse?a=1&b=2#frag', ['a', 'b']), '/sse?a=[REDACTED]&b=[REDACTED]#frag')
  t.equal(redactQueryParam('/sse?%E0%A4%A=1', 'k'), '/sse?%E0%A4%A=1', 'a name that does not decode is left alone')
})
