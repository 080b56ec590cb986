// API keys: where a key is accepted, the principal it yields (a fingerprint, never the key), the
// challenge, and that keys stay out of answers and request logs.
import { createHash } from 'node:crypto'
import { Writable } from 'node:stream'
import type { FastifyRequest } from 'fastify'
import t from 'tap'
import { keyFingerprint } from '../../src/auth/apikey.js'
import { redactQueryParam } from '../../src/auth/redact.js'
import { MCPServer } from '../../src/index.js'
import { assertRefused, guardApp, wholeAnswer } from '../helpers/auth-app.js'
import { exchange } from '../helpers/raw-socket.js'

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

t.test('a key header sent twice is 400 invalid_request, over a real socket, whatever the keys', async (t) => {
  // Node folds the two lines into "a, b" before the guard sees them; that used to fail as a wrong key (401).
  const server = new MCPServer({ transport: { type: 'sse', options: { port: 0, auth: { type: 'apikey', options: { keys: KEYS } } } } })
  const { port } = await server.start() as { port: number }
  t.teardown(() => server.stop())
  const get = (keyLines: string): string => `GET /sse HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${keyLines}Connection: close\r\n\r\n`
  for (const [what, lines] of [
    ['the same valid key twice', `X-API-Key: ${KEY_A}\r\nX-API-Key: ${KEY_A}\r\n`],
    ['two valid keys', `X-API-Key: ${KEY_A}\r\nx-api-key: ${KEY_B}\r\n`],
    ['a valid key and an empty line', `X-API-Key: ${KEY_A}\r\nX-API-Key: \r\n`]
  ] as const) {
    const answer = await exchange(port, get(lines))
    t.equal(answer.status, 400, what)
    t.same(JSON.parse(answer.body), { error: 'invalid_request', error_description: 'Send exactly one API key' }, what)
    t.match(answer.headers['www-authenticate'], /^ApiKey realm="mcp", header="X-API-Key", error="invalid_request"/)
    for (const key of KEYS) t.notOk(answer.text.includes(key), 'no key echoed')
  }
  // One line passes auth: the unknown session is the next thing to fail.
  const body = '{"jsonrpc":"2.0","method":"ping","id":1}'
  const once = await exchange(port, `POST /messages?sessionId=none HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-API-Key: ${KEY_B}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`)
  t.equal(once.status, 404, 'one key line authenticates')
  t.equal(JSON.parse(once.body).error.code, -32001)
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
  t.equal(guard.logSerializers.req({ url: `/sse?a=1&api_key=${KEY_A}`, headers: {}, socket: {} } as unknown as FastifyRequest).url, '/sse?a=1&api_key=[REDACTED]', 'the serializer the MCP routes log with')
})

t.test('redactQueryParam', async (t) => {
  t.equal(redactQueryParam('/sse', 'k'), '/sse')
  t.equal(redactQueryParam('/sse?k=1&k=2&kk=3', 'k'), '/sse?k=[REDACTED]&k=[REDACTED]&kk=3')
  t.equal(redactQueryParam('/sse?%6B=secret', 'k'), '/sse?%6B=[REDACTED]', 'a percent-encoded name')
  t.equal(redactQueryParam('/sse?k', 'k'), '/sse?k=[REDACTED]')
  t.equal(redactQueryParam('/sse?a=1&b=2#frag', ['a', 'b']), '/sse?a=[REDACTED]&b=[REDACTED]#frag')
  t.equal(redactQueryParam('/sse?%E0%A4%A=1', 'k'), '/sse?%E0%A4%A=1', 'a name that does not decode is left alone')
})
