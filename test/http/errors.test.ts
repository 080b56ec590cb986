import t from 'tap'
import { request as httpRequest } from 'node:http'
import type { Test } from 'tap'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { jsonRpcCodeOf, toTransportError, transportErrorHandler } from '../../src/transports/http/replies.js'
import { catalogApp, listeningCatalogApp } from '../helpers/serve.js'
import { endpointOf, openRawStream } from '../helpers/sse-raw.js'
import { until } from '../helpers/wait.js'

// One test per row of the error contract. `inject` for the HTTP edge cases;
// real sockets where the behaviour depends on them (Host check, capacity).

const SECRET = 'do-not-echo-4f7c'

/** Opens a session over a real socket and returns its message URL (path + query). */
async function openSession (t: Test, base: string): Promise<{ messages: string, drop: () => void }> {
  const stream = await openRawStream(`${base}/sse`)
  t.teardown(() => stream.destroy())
  return { messages: endpointOf(await stream.next()), drop: stream.destroy }
}

function assertContract (t: Test, res: LightMyRequestResponse | { statusCode: number, body: string, headers: Record<string, unknown> }, status: number, code: number, message: RegExp): void {
  t.equal(res.statusCode, status, `status ${status}`)
  t.match(String(res.headers['content-type']), /^application\/json/)
  const body = JSON.parse(res.body)
  t.same(Object.keys(body).sort(), ['error', 'id', 'jsonrpc'], 'only the JSON-RPC envelope')
  t.equal(body.jsonrpc, '2.0')
  t.equal(body.id, null, 'id is null')
  t.equal(body.error.code, code, `JSON-RPC code ${code}`)
  t.match(body.error.message, message)
  t.same(Object.keys(body.error).sort(), ['code', 'message'], 'no data, no stack')
  t.notMatch(res.body, SECRET, 'the input is not echoed')
  t.notMatch(res.body, /at .*\.(ts|js):\d+/, 'no stack trace')
}

async function post (app: FastifyInstance, url: string, payload: string, contentType = 'application/json'): Promise<LightMyRequestResponse> {
  return await app.inject({ method: 'POST', url, payload, headers: { 'content-type': contentType } })
}

t.test('400 -32700: the body is not JSON', async (t) => {
  const { app, base } = await listeningCatalogApp(t)
  const { messages } = await openSession(t, base)
  assertContract(t, await post(app, messages, `{"jsonrpc":"2.0", ${SECRET}`), 400, -32700, /^Parse error/)
  assertContract(t, await post(app, messages, ''), 400, -32700, /^Parse error/)
  assertContract(t, await post(app, messages, `{"__proto__":{"x":"${SECRET}"}}`), 400, -32700, /^Parse error/)
})

t.test('400 -32600: JSON that is not a JSON-RPC message', async (t) => {
  const { app, base } = await listeningCatalogApp(t)
  const { messages } = await openSession(t, base)
  assertContract(t, await post(app, messages, JSON.stringify({ hello: SECRET })), 400, -32600, /^Invalid request: /)
  assertContract(t, await post(app, messages, JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'ping' }])), 400, -32600, /batches are not supported/)
  assertContract(t, await post(app, messages, JSON.stringify({ jsonrpc: '1.0', id: 1, method: SECRET })), 400, -32600, /jsonrpc must be "2.0"/)
})

t.test('400 -32600: the sessionId query parameter is missing', async (t) => {
  const app = await catalogApp(t)
  const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })
  assertContract(t, await post(app, '/messages', ping), 400, -32600, /sessionId query parameter is required/)
  assertContract(t, await post(app, '/messages?sessionId=', ping), 400, -32600, /sessionId query parameter is required/)
  assertContract(t, await post(app, '/messages?sessionId=a&sessionId=b', ping), 400, -32600, /sessionId query parameter is required/)
})

t.test('404 -32001: unknown session, and a session that has ended', async (t) => {
  const { app, base } = await listeningCatalogApp(t)
  const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })
  assertContract(t, await post(app, `/messages?sessionId=${SECRET}`, ping), 404, -32001, /^Session not found$/)
  assertContract(t, await post(app, `/messages?sessionId=${'x'.repeat(1000)}`, ping), 404, -32001, /^Session not found$/)

  const { messages, drop } = await openSession(t, base)
  const live = await post(app, messages, ping)
  t.equal(live.statusCode, 202, 'accepted while the stream is open')
  t.equal(live.body, 'Accepted')
  drop()
  await until(() => app.mcp.sessionCount === 0, { timeoutMs: 5000, what: 'the session to end' })
  assertContract(t, await post(app, messages, ping), 404, -32001, /^Session not found$/)
})

t.test('413: the body is larger than bodyLimit', async (t) => {
  const { app, base } = await listeningCatalogApp(t, { bodyLimit: 1024 })
  const { messages } = await openSession(t, base)
  const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: SECRET.repeat(200) } })
  assertContract(t, await post(app, messages, big), 413, -32600, /larger than 1024 bytes/)
})

t.test('415: anything but application/json', async (t) => {
  const { app, base } = await listeningCatalogApp(t)
  const { messages } = await openSession(t, base)
  const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })
  assertContract(t, await post(app, messages, ping, 'text/plain'), 415, -32600, /Content-Type must be application\/json/)
  assertContract(t, await post(app, messages, `a=${SECRET}`, 'application/x-www-form-urlencoded'), 415, -32600, /Content-Type must be application\/json/)
  assertContract(t, await app.inject({ method: 'POST', url: messages }), 415, -32600, /Content-Type must be application\/json/)
  t.equal((await post(app, messages, ping, 'application/json; charset=utf-8')).statusCode, 202, 'a charset parameter is fine')
})

t.test('403: a foreign Origin is refused (no CORS configured)', async (t) => {
  const app = await catalogApp(t)
  const res = await app.inject({ method: 'GET', url: '/sse', headers: { origin: 'https://evil.example' } })
  assertContract(t, res, 403, -32000, /^Forbidden: the Origin is not allowed$/)
  t.notOk(res.headers['access-control-allow-origin'], 'no CORS header')
  const postRes = await app.inject({ method: 'POST', url: '/messages?sessionId=x', payload: '{}', headers: { origin: 'null', 'content-type': 'application/json' } })
  assertContract(t, postRes, 403, -32000, /Origin is not allowed/)
})

t.test('403: a foreign Host on a loopback listener (DNS rebinding)', async (t) => {
  const { base } = await listeningCatalogApp(t, { allowedHosts: ['mcp.internal'] })
  const { port } = new URL(base)
  const get = async (host: string): Promise<{ statusCode: number, body: string, headers: Record<string, unknown> }> => await new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: '/sse', headers: { host } }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        body += chunk
        // An event stream never ends by itself: stop at the endpoint event.
        if (body.includes('\n\n') && res.statusCode === 200) req.destroy()
      })
      res.on('end', () => resolve({ statusCode: res.statusCode ?? 0, body, headers: res.headers }))
      res.on('close', () => resolve({ statusCode: res.statusCode ?? 0, body, headers: res.headers }))
    })
    req.on('error', reject)
    req.end()
  })
  assertContract(t, await get('evil.example'), 403, -32000, /^Forbidden: the Host header is not allowed$/)
  assertContract(t, await get(`evil.example:${port}`), 403, -32000, /Host header is not allowed/)
  for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, 'LOCALHOST', 'mcp.internal', `mcp.internal:${port}`]) {
    t.equal((await get(host)).statusCode, 200, `Host ${host} accepted`)
  }
})

t.test('503 + Retry-After at capacity', async (t) => {
  const { app, base } = await listeningCatalogApp(t, { maxSessions: 1 })
  const first = await openSession(t, base)
  const res = await app.inject({ method: 'GET', url: '/sse' })
  assertContract(t, res, 503, -32000, /at capacity/)
  t.equal(res.headers['retry-after'], '5', 'Retry-After in seconds')
  first.drop()
  await until(() => app.mcp.sessionCount === 0, { timeoutMs: 5000, what: 'the first session to end' })
  const again = await openRawStream(`${base}/sse`)
  t.teardown(() => again.destroy())
  t.equal(again.response.statusCode, 200, 'a freed slot is usable again')
})

t.test('errors outside the table keep their status, never their text', async (t) => {
  const request = { routeOptions: { bodyLimit: 2048 } } as never
  const bug = Object.assign(new Error(`secret ${SECRET}`), { code: 'ERR_SOMETHING' })
  t.same(toTransportError(bug as never, request), { statusCode: 500, code: 'ERR_SOMETHING', message: 'Internal error' }, 'a bug is an opaque 500')
  const fastify400 = Object.assign(new Error(`Bad content length ${SECRET}`), { code: 'FST_ERR_CTP_INVALID_CONTENT_LENGTH', statusCode: 400 })
  t.same(toTransportError(fastify400 as never, request), { statusCode: 400, code: 'FST_ERR_CTP_INVALID_CONTENT_LENGTH', message: 'Bad Request' }, "Fastify's 4xx keep the status, with the standard phrase")
  const odd = Object.assign(new Error(SECRET), { code: 'ERR_ODD', statusCode: 499 })
  t.same(toTransportError(odd as never, request), { statusCode: 499, code: 'ERR_ODD', message: 'Bad request' }, 'a status without a standard phrase')
  const noCode = Object.assign(new Error('x'), { statusCode: 299 })
  t.same(toTransportError(noCode as never, request), { statusCode: 500, code: 'FST_MCP_INTERNAL', message: 'Internal error' }, 'a nonsense status is a 500')
  t.equal(jsonRpcCodeOf({ statusCode: 500, code: 'X', message: '' }), -32603, '5xx is -32603')
  t.match(toTransportError(Object.assign(new Error('x'), { code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413 }) as never, request), { statusCode: 413, message: /2048 bytes/ })

  // Through the real handler: a dispatcher that throws synchronously is logged, not sent.
  const logged: unknown[] = []
  const app = await catalogApp(t)
  app.log.error = ((details: unknown) => { logged.push(details) }) as never
  const reply = {
    code (status: number) { this.status = status; return this },
    header () { return this },
    type () { return this },
    send (body: unknown) { this.body = body; return this },
    status: 0,
    body: undefined as unknown
  }
  transportErrorHandler(bug as never, { log: app.log, routeOptions: { bodyLimit: 1 } } as never, reply as never)
  t.equal(reply.status, 500)
  t.same(reply.body, { jsonrpc: '2.0', id: null, error: { code: -32603, message: 'Internal error' } })
  t.equal(logged.length, 1, 'the real error goes to the log only')
})
