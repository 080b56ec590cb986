import t from 'tap'
import { catalogApp, listeningCatalogApp } from '../helpers/serve.js'
import { endpointOf, openRawStream } from '../helpers/sse-raw.js'

const APP = 'https://app.example'
const KEY = 'cors-test-key-0123456789'
const preflightHeaders = (origin: string, method = 'POST'): Record<string, string> => ({
  origin,
  'access-control-request-method': method,
  'access-control-request-headers': 'authorization, content-type, mcp-session-id'
})

t.test('an allowed origin gets CORS headers on the stream and on POST answers', async (t) => {
  const { app, base } = await listeningCatalogApp(t, { cors: { allowOrigins: [APP, 'https://other.example'] } })
  const stream = await openRawStream(`${base}/sse`, { origin: APP })
  t.teardown(() => stream.destroy())
  t.equal(stream.response.statusCode, 200)
  t.equal(stream.response.headers['access-control-allow-origin'], APP, 'the origin is reflected exactly')
  t.equal(stream.response.headers['access-control-expose-headers'], 'Mcp-Session-Id', 'Mcp-Session-Id exposed')
  t.match(stream.response.headers.vary, /Origin/, 'Vary: Origin for caches')
  t.equal(stream.response.headers['access-control-allow-credentials'], undefined, 'no credentials mode')
  const messages = endpointOf(await stream.next())

  const accepted = await app.inject({ method: 'POST', url: messages, headers: { origin: APP, 'content-type': 'application/json' }, payload: { jsonrpc: '2.0', id: 1, method: 'ping' } })
  t.equal(accepted.statusCode, 202)
  t.equal(accepted.headers['access-control-allow-origin'], APP)
  const notFound = await app.inject({ method: 'POST', url: '/messages?sessionId=nope', headers: { origin: APP, 'content-type': 'application/json' }, payload: '{}' })
  t.equal(notFound.statusCode, 404)
  t.equal(notFound.headers['access-control-allow-origin'], APP, 'error answers are readable by the page too')
})

t.test('an origin not in the list is refused, with no CORS headers', async (t) => {
  const app = await catalogApp(t, { cors: { allowOrigins: [APP] } })
  for (const origin of ['https://evil.example', 'https://app.example.evil.example', 'http://app.example', 'null']) {
    const res = await app.inject({ method: 'POST', url: '/messages?sessionId=x', headers: { origin, 'content-type': 'application/json' }, payload: '{}' })
    t.equal(res.statusCode, 403, `${origin} refused`)
    t.equal(res.json().error.message, 'Forbidden: the Origin is not allowed')
    t.notOk(res.headers['access-control-allow-origin'], 'no ACAO')
    const preflight = await app.inject({ method: 'OPTIONS', url: '/messages', headers: preflightHeaders(origin) })
    t.equal(preflight.statusCode, 403, 'its preflight is refused too')
    t.notOk(preflight.headers['access-control-allow-origin'])
  }
})

t.test('an empty list allows no cross-origin caller, but same-origin still works', async (t) => {
  const app = await catalogApp(t, { cors: { allowOrigins: [] } })
  const foreign = await app.inject({ method: 'OPTIONS', url: '/sse', headers: preflightHeaders(APP, 'GET') })
  t.equal(foreign.statusCode, 403)
  t.notOk(foreign.headers['access-control-allow-origin'])
  // inject sends Host: localhost:80; a page served from there is same-origin.
  const same = await app.inject({ method: 'POST', url: '/messages?sessionId=x', headers: { origin: 'http://localhost', 'content-type': 'application/json' }, payload: '{}' })
  t.equal(same.statusCode, 404, 'same-origin passes the guard (then finds no session)')
  t.notOk(same.headers['access-control-allow-origin'], 'same-origin needs no CORS headers')
})

t.test('preflight lists the allowed headers and is never blocked by auth', async (t) => {
  const app = await catalogApp(t, { cors: { allowOrigins: [APP] }, auth: { type: 'apikey', options: { keys: [KEY] } } })
  for (const url of ['/sse', '/messages']) {
    const res = await app.inject({ method: 'OPTIONS', url, headers: preflightHeaders(APP) })
    t.equal(res.statusCode, 204, `${url}: preflight answered without credentials`)
    t.equal(res.headers['content-length'], '0')
    t.equal(res.headers['access-control-allow-origin'], APP)
    t.equal(res.headers['access-control-allow-methods'], 'GET, POST, DELETE, OPTIONS')
    t.equal(res.headers['access-control-allow-headers'], 'Authorization, Content-Type, Mcp-Session-Id, Mcp-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID, X-API-Key', 'with the API key header')
    t.equal(res.headers['access-control-max-age'], '600')
    t.equal(res.headers['www-authenticate'], undefined, 'no challenge on a preflight')
  }
  const unauthenticated = await app.inject({ method: 'POST', url: '/messages?sessionId=x', headers: { origin: APP, 'content-type': 'application/json' }, payload: '{}' })
  t.equal(unauthenticated.statusCode, 401, 'the actual request does need the key')
  t.equal(unauthenticated.headers['access-control-allow-origin'], APP, 'and its 401 is readable by the page')
  t.equal(unauthenticated.headers['access-control-expose-headers'], 'Mcp-Session-Id, WWW-Authenticate', 'including the challenge')
})

t.test('a 2026-07-28 browser client may send Mcp-Method, Mcp-Name and its tools\' Mcp-Param-* headers', async (t) => {
  const app = await catalogApp(t, { cors: { allowOrigins: [APP] } })
  // What a browser asks before a 2026-07-28 tools/call of a tool with an `x-mcp-header` parameter.
  const asked = 'content-type, mcp-method, mcp-name, mcp-param-region, mcp-protocol-version'
  const res = await app.inject({ method: 'OPTIONS', url: '/mcp', headers: { ...preflightHeaders(APP), 'access-control-request-headers': asked } })
  t.equal(res.statusCode, 204)
  const allowed = new Set(String(res.headers['access-control-allow-headers']).toLowerCase().split(', '))
  for (const name of asked.split(', ')) t.ok(allowed.has(name), `${name} is allowed`)
  t.equal(res.headers.vary, 'Origin, Access-Control-Request-Headers')

  const odd = 'mcp-param-' + 'x'.repeat(65) + ', x-not-ours, mcp-param-a b, ' + Array.from({ length: 40 }, (_, i) => `mcp-param-p${i}`).join(', ')
  const bounded = await app.inject({ method: 'OPTIONS', url: '/mcp', headers: { ...preflightHeaders(APP), 'access-control-request-headers': odd } })
  const named = String(bounded.headers['access-control-allow-headers']).toLowerCase().split(', ')
  t.notOk(named.includes('x-not-ours'), 'only Mcp-Param-* names are taken from the request')
  t.notOk(named.some((name) => name.length > 'mcp-param-'.length + 64 || name.includes(' ')), 'over-long and malformed names are not')
  t.equal(named.filter((name) => name.startsWith('mcp-param-')).length, 32, 'at most 32 of them')
})

t.test('a wildcard allows any origin', async (t) => {
  const app = await catalogApp(t, { cors: { allowOrigins: ['*'] } })
  const res = await app.inject({ method: 'OPTIONS', url: '/messages', headers: preflightHeaders('https://anyone.example') })
  t.equal(res.statusCode, 204)
  t.equal(res.headers['access-control-allow-origin'], '*')
  t.equal(res.headers['access-control-allow-headers'], 'Authorization, Content-Type, Mcp-Session-Id, Mcp-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID')
  t.equal(res.headers.vary, 'Access-Control-Request-Headers', 'any origin, but the answer depends on the headers asked for')
  const post = await app.inject({ method: 'POST', url: '/messages?sessionId=x', headers: { origin: 'https://anyone.example', 'content-type': 'application/json' }, payload: '{}' })
  t.equal(post.headers['access-control-allow-origin'], '*')
})

t.test('without cors there are no preflight routes and no CORS headers', async (t) => {
  const app = await catalogApp(t)
  const res = await app.inject({ method: 'OPTIONS', url: '/messages', headers: preflightHeaders(APP) })
  t.not(res.statusCode, 204, 'no preflight answer')
  t.notOk(res.headers['access-control-allow-origin'])
  const plain = await app.inject({ method: 'POST', url: '/messages?sessionId=x', headers: { 'content-type': 'application/json' }, payload: '{}' })
  t.equal(plain.statusCode, 404)
  t.notOk(plain.headers['access-control-allow-origin'])
})
