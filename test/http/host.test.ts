// DNS rebinding over real sockets (issue 10, defect 5): the Host check cannot be dodged with an
// absolute-form target, two Host lines or a Host with userinfo; the same-origin test compares the
// scheme; `allowedHosts` holds whatever the bind address; the RFC 9728 metadata route does not
// echo a foreign Host into `resource` under public caching; an exposed server without
// allowedHosts or auth is warned about at boot.
import { Writable } from 'node:stream'
import t, { type Test } from 'tap'
import { exposureWarning } from '../../src/transports/http/guards.js'
import { startFakeAuthorizationServer } from '../fixtures/auth-fake-as.js'
import { exchange } from '../helpers/raw-socket.js'
import { listeningCatalogApp, serve } from '../helpers/serve.js'

const INIT = '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}'

/** A raw initialize POST: `target` is the request line's target, `headers` the header lines. */
function post (target: string, headers: string): string {
  return `POST ${target} HTTP/1.1\r\n${headers}Accept: application/json, text/event-stream\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${INIT.length}\r\nConnection: close\r\n\r\n${INIT}`
}

async function portOf (t: Test, options: Record<string, unknown> = {}): Promise<number> {
  const { base } = await listeningCatalogApp(t, options)
  return Number(new URL(base).port)
}

t.test('an absolute-form target is checked by its authority, not by a harmless Host', async (t) => {
  const port = await portOf(t)
  const evil = await exchange(port, post('http://evil.example/mcp', `Host: 127.0.0.1:${port}\r\n`))
  t.equal(evil.status, 403, 'a foreign authority in the target')
  t.equal(JSON.parse(evil.body).error.message, 'Forbidden: the Host header is not allowed')
  const userinfo = await exchange(port, post(`http://localhost:${port}@evil.example/mcp`, `Host: 127.0.0.1:${port}\r\n`))
  t.equal(userinfo.status, 400, 'userinfo in the target is refused outright')
  const ours = await exchange(port, post(`http://localhost:${port}/mcp`, 'Host: evil.example\r\n'))
  t.equal(ours.status, 200, 'a loopback authority is served (the Host header is ignored, RFC 9112 §3.2.2)')
})

t.test('two Host lines, or an invalid Host, are 400 (RFC 9112 §3.2)', async (t) => {
  const port = await portOf(t)
  for (const [what, headers] of [
    ['two Host lines', `Host: 127.0.0.1:${port}\r\nHost: evil.example\r\n`],
    ['two identical Host lines', `Host: 127.0.0.1:${port}\r\nHost: 127.0.0.1:${port}\r\n`],
    ['userinfo in Host', 'Host: localhost:80@evil.example\r\n'],
    ['a space in Host', 'Host: localhost evil.example\r\n'],
    ['a path in Host', 'Host: localhost/evil\r\n'],
    ['a port that is no number', 'Host: localhost:http\r\n']
  ] as const) {
    const answer = await exchange(port, post('/mcp', headers))
    t.equal(answer.status, 400, what)
    t.same(JSON.parse(answer.body), { jsonrpc: '2.0', id: null, error: { code: -32600, message: JSON.parse(answer.body).error.message } })
    t.notMatch(answer.body, /evil/, 'nothing echoed')
  }
  t.equal((await exchange(port, post('/mcp', `Host: 127.0.0.1:${port}\r\n`))).status, 200, 'one valid Host is served')
  t.equal((await exchange(port, post('/mcp', 'Host: [::1]\r\n'))).status, 200, 'an IPv6 literal is valid')
})

t.test('same origin means the same scheme too', async (t) => {
  const port = await portOf(t)
  const host = `Host: 127.0.0.1:${port}\r\n`
  t.equal((await exchange(port, post('/mcp', `${host}Origin: http://127.0.0.1:${port}\r\n`))).status, 200, 'http page, http server')
  const https = await exchange(port, post('/mcp', `${host}Origin: https://127.0.0.1:${port}\r\n`))
  t.equal(https.status, 403, 'an https page is another origin than the plain-http server')
  t.equal(JSON.parse(https.body).error.message, 'Forbidden: the Origin is not allowed')
})

t.test('allowedHosts: listed names are served, others refused', async (t) => {
  const port = await portOf(t, { allowedHosts: ['mcp.internal'] })
  t.equal((await exchange(port, post('/mcp', 'Host: mcp.internal\r\n'))).status, 200)
  t.equal((await exchange(port, post('/mcp', `Host: mcp.internal:${port}\r\n`))).status, 200, 'with any port')
  t.equal((await exchange(port, post('/mcp', 'Host: evil.example\r\nOrigin: http://evil.example\r\n'))).status, 403)
  t.equal((await exchange(port, post('/mcp', `Host: localhost:${port}\r\n`))).status, 200, 'loopback names still work on a loopback connection')
})

t.test('RFC 9728 metadata: a foreign Host is refused; a Host-derived resource is never cached publicly', async (t) => {
  const as = await startFakeAuthorizationServer()
  t.teardown(as.close)
  as.routes.set('/.well-known/oauth-authorization-server', {
    status: 200, body: { issuer: as.origin, jwks_uri: `${as.origin}/jwks`, introspection_endpoint: `${as.origin}/introspect` }
  })
  const auth = (extra: Record<string, unknown>) => ({ type: 'oauth', options: { issuerUrl: as.origin, clientId: 'c', clientSecret: 's', ...extra } })
  const get = (port: number, host: string, path = '/.well-known/oauth-protected-resource/mcp'): string =>
    `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`

  const derived = await portOf(t, { auth: auth({ audience: 'mcp' }) })
  const evil = await exchange(derived, get(derived, 'evil.example'))
  t.equal(evil.status, 403, 'a rebinding Host gets no metadata')
  t.notMatch(evil.text, /evil\.example/, 'and is not echoed')
  t.equal((await exchange(derived, get(derived, 'localhost:80@evil.example'))).status, 400)
  const local = await exchange(derived, get(derived, `127.0.0.1:${derived}`))
  t.equal(local.status, 200)
  t.equal(JSON.parse(local.body).resource, `http://127.0.0.1:${derived}/mcp`)
  t.equal(local.headers['cache-control'], 'no-store', 'derived from the Host: not for shared caches')

  const fixed = await portOf(t, { auth: auth({ resource: 'https://mcp.example.com/mcp' }), allowedHosts: ['mcp.example.com'] })
  const answer = await exchange(fixed, get(fixed, 'mcp.example.com'))
  t.equal(answer.status, 200)
  t.equal(JSON.parse(answer.body).resource, 'https://mcp.example.com/mcp', 'the configured resource')
  t.equal(answer.headers['cache-control'], 'public, max-age=300', 'configured: cacheable')
})

t.test('boot warning: an exposed listener with neither allowedHosts nor auth', async (t) => {
  const addresses = (...list: string[]) => list.map((address) => ({ address }))
  const open = { allowedHosts: undefined, auth: undefined }
  t.match(exposureWarning(addresses('0.0.0.0'), open), /0\.0\.0\.0.*allowedHosts.*auth/)
  t.match(exposureWarning(addresses('127.0.0.1', '::'), open), /::/)
  t.match(exposureWarning(addresses('192.0.2.10'), open), /192\.0\.2\.10/)
  t.equal(exposureWarning(addresses('127.0.0.1', '::1'), open), undefined, 'loopback only')
  t.equal(exposureWarning(addresses('0.0.0.0'), { allowedHosts: ['mcp.internal'], auth: undefined }), undefined)
  t.equal(exposureWarning(addresses('0.0.0.0'), { allowedHosts: undefined, auth: { type: 'apikey' } }), undefined)

  // And through a real app: one line, at listen, for the plugin's app; none on loopback.
  const lines: string[] = []
  const stream = new Writable({ write (chunk, _enc, done) { lines.push(String(chunk)); done() } })
  await serve(t, {}, undefined, { fastify: { logger: { level: 'warn', stream } } })
  t.same(lines, [], 'a loopback listener is not warned about')
})
