import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { BOTH, eventsOf, messageOf, openSession, raw } from '../helpers/streamable-raw.js'
import { catalogApp, listeningCatalogApp } from '../helpers/serve.js'
import { sleep } from '../helpers/wait.js'
import { probes } from '../fixtures/catalog.js'

const INIT = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'inject', version: '0' } } }
const call = (id: number, name: string, args: Record<string, unknown> = {}, progressToken?: string): Record<string, unknown> =>
  ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, ...(progressToken === undefined ? {} : { _meta: { progressToken } }) } })

async function initialize (app: FastifyInstance, protocolVersion = '2025-11-25', url = '/mcp'): Promise<string> {
  const reply = await app.inject({ method: 'POST', url, headers: BOTH, payload: { ...INIT, params: { ...INIT.params, protocolVersion } } })
  const id = reply.headers['mcp-session-id']
  if (typeof id !== 'string') throw new Error(`initialize failed: ${reply.statusCode} ${reply.body}`)
  return id
}

t.test('initialize issues a session id and answers as JSON when the client takes it', async (t) => {
  const app = await catalogApp(t)
  const reply = await app.inject({ method: 'POST', url: '/mcp', headers: BOTH, payload: INIT })
  t.equal(reply.statusCode, 200)
  t.match(reply.headers['content-type'], /^application\/json/)
  t.match(reply.headers['mcp-session-id'], /^[0-9a-f-]{36}$/, 'a UUID session id')
  t.match(reply.json(), { jsonrpc: '2.0', id: 0, result: { protocolVersion: '2025-11-25', serverInfo: { name: 'catalog', version: '1.0.0' } } })
  t.equal(app.mcp.sessionCount, 1)

  const sseOnly = await app.inject({ method: 'POST', url: '/mcp', headers: { ...BOTH, accept: 'text/event-stream' }, payload: INIT })
  t.equal(sseOnly.statusCode, 200)
  t.match(sseOnly.headers['content-type'], /^text\/event-stream/, 'an event stream for a client that takes only that')
  t.ok(sseOnly.headers['mcp-session-id'])
  t.match(JSON.parse(eventsOf(sseOnly.body)[0]?.data ?? ''), { id: 0, result: { protocolVersion: '2025-11-25' } })
})

t.test('a failed initialize answers the JSON-RPC error and opens no session', async (t) => {
  const app = await catalogApp(t)
  const reply = await app.inject({ method: 'POST', url: '/mcp', headers: BOTH, payload: { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} } })
  t.equal(reply.statusCode, 200)
  t.notOk(reply.headers['mcp-session-id'], 'no session id')
  t.match(reply.json(), { id: 1, error: { code: -32602 } })
  t.equal(app.mcp.sessionCount, 0)
})

t.test('a request that streams is answered on an event stream: priming event first, then the response, then the end', async (t) => {
  const app = await catalogApp(t)
  const session = await initialize(app)
  const reply = await app.inject({ method: 'POST', url: '/mcp', headers: { ...BOTH, 'mcp-session-id': session }, payload: call(1, 'progress', { steps: 2 }, 'tok') })
  t.equal(reply.statusCode, 200)
  t.match(reply.headers['content-type'], /^text\/event-stream/)
  const events = eventsOf(reply.body)
  t.match(events[0], { id: /^\d+_\d+$/, retry: 1000, data: '' }, 'a priming event: an id, a retry and empty data')
  const messages = events.slice(1).map((event) => JSON.parse(event.data ?? ''))
  t.same(messages.map((message) => message.method ?? 'response'),
    ['notifications/progress', 'notifications/progress', 'notifications/message', 'response'], 'progress and logs of the call, then its answer')
  t.same(messages[3], { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'done 2' }] } })
  t.ok(events.every((event) => event.id !== undefined), 'every event has an id')
  t.equal(new Set(events.map((event) => event.id)).size, events.length, 'ids are unique')
})

t.test('a client that takes only JSON gets the response alone as JSON', async (t) => {
  const app = await catalogApp(t)
  const session = await initialize(app)
  const reply = await app.inject({
    method: 'POST', url: '/mcp', headers: { ...BOTH, accept: 'application/json', 'mcp-session-id': session }, payload: call(1, 'progress', { steps: 2 }, 'tok')
  })
  t.equal(reply.statusCode, 200)
  t.match(reply.headers['content-type'], /^application\/json/)
  t.same(reply.json(), { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'done 2' }] } })
})

t.test('priming follows the version the session negotiated, not the request header', async (t) => {
  const app = await catalogApp(t)
  const SSE = { ...BOTH, accept: 'text/event-stream' }
  const old = await initialize(app, '2025-06-18')
  const forOld = await app.inject({
    method: 'POST', url: '/mcp', headers: { ...SSE, 'mcp-session-id': old, 'mcp-protocol-version': '2025-11-25' }, payload: call(1, 'add', { a: 1, b: 2 })
  })
  const oldEvents = eventsOf(forOld.body)
  t.equal(oldEvents.length, 1, 'a 2025-06-18 session gets no priming event')
  t.equal(oldEvents[0]?.id, '1_1', 'its events still have ids')
  const current = await initialize(app, '2025-11-25')
  const forCurrent = await app.inject({
    method: 'POST', url: '/mcp', headers: { ...SSE, 'mcp-session-id': current, 'mcp-protocol-version': '2025-03-26' }, payload: call(1, 'add', { a: 1, b: 2 })
  })
  t.match(eventsOf(forCurrent.body), [{ data: '' }, { data: /"text":"3"/ }], 'a 2025-11-25 session is primed whatever the header says')

  // The same when a client taking both is upgraded to a stream mid-call.
  const upgradedOld = await app.inject({
    method: 'POST', url: '/mcp', headers: { ...BOTH, 'mcp-session-id': old, 'mcp-protocol-version': '2025-11-25' }, payload: call(2, 'progress', { steps: 1 }, 'tok')
  })
  t.match(upgradedOld.headers['content-type'], /^text\/event-stream/)
  t.ok(eventsOf(upgradedOld.body).every((event) => event.data !== '' && event.id !== undefined), 'upgraded, 2025-06-18: ids, no priming')
  const upgradedCurrent = await app.inject({
    method: 'POST', url: '/mcp', headers: { ...BOTH, 'mcp-session-id': current, 'mcp-protocol-version': '2025-03-26' }, payload: call(2, 'progress', { steps: 1 }, 'tok')
  })
  t.match(eventsOf(upgradedCurrent.body), [{ data: '', retry: 1000 }, { data: /notifications\/progress/ }], 'upgraded, 2025-11-25: primed')
})

t.test('status codes of the error contract', async (t) => {
  const app = await catalogApp(t)
  const session = await initialize(app)
  const post = async (headers: Record<string, string>, payload: unknown = call(1, 'add', { a: 1, b: 1 })) =>
    await app.inject({ method: 'POST', url: '/mcp', headers, payload: payload as string })

  const missing = await post(BOTH)
  t.equal(missing.statusCode, 400, 'no session id: 400')
  t.match(missing.json(), { jsonrpc: '2.0', id: null, error: { code: -32600, message: /Mcp-Session-Id header is required/ } })

  const unknown = await post({ ...BOTH, 'mcp-session-id': 'no-such-session' })
  t.equal(unknown.statusCode, 404, 'unknown session: 404')
  t.match(unknown.json(), { id: null, error: { code: -32001, message: 'Session not found' } })
  t.equal((await post({ ...BOTH, 'mcp-session-id': 'x'.repeat(500) })).statusCode, 404, 'an absurdly long id is unknown too')

  const badVersion = await post({ ...BOTH, 'mcp-session-id': session, 'mcp-protocol-version': '1999-01-01' })
  t.equal(badVersion.statusCode, 400, 'unsupported MCP-Protocol-Version: 400')
  t.match(badVersion.json(), { error: { code: -32600, message: /unsupported MCP-Protocol-Version 1999-01-01/ } })
  const garbage = await post({ ...BOTH, 'mcp-session-id': session, 'mcp-protocol-version': '<script>' })
  t.match(garbage.json(), { error: { message: /\(malformed\)/ } }, 'arbitrary header bytes are not echoed')
  t.equal((await post({ ...BOTH, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' })).statusCode, 200, 'another supported version is accepted')
  t.equal((await post({ ...BOTH, 'mcp-session-id': session })).statusCode, 200, 'no header: the negotiated version is assumed')

  const notAcceptable = await post({ ...BOTH, accept: 'text/html', 'mcp-session-id': session })
  t.equal(notAcceptable.statusCode, 406, 'Accept without JSON or SSE: 406')
  t.match(notAcceptable.json(), { id: null, error: { message: /Accept must include/ } })
  t.equal((await post({ ...BOTH, accept: 'application/json;q=0, text/event-stream;q=0', 'mcp-session-id': session })).statusCode, 406, 'q=0 refuses')
  t.equal((await post({ 'content-type': 'application/json', 'mcp-session-id': session })).statusCode, 200, 'no Accept at all means anything')
  t.equal((await post({ ...BOTH, accept: '*/*', 'mcp-session-id': session })).statusCode, 200, 'wildcards count')

  const wrongType = await post({ ...BOTH, 'content-type': 'text/plain', 'mcp-session-id': session }, 'hello')
  t.equal(wrongType.statusCode, 415, 'Content-Type other than JSON: 415')
  const noBody = await app.inject({ method: 'POST', url: '/mcp', headers: { accept: BOTH.accept, 'mcp-session-id': session } })
  t.equal(noBody.statusCode, 415, 'no body at all: 415')

  const parse = await app.inject({ method: 'POST', url: '/mcp', headers: { ...BOTH, 'mcp-session-id': session }, payload: '{nope' })
  t.equal(parse.statusCode, 400)
  t.match(parse.json(), { error: { code: -32700 } }, 'not JSON: parse error')
  const batch = await post({ ...BOTH, 'mcp-session-id': session }, [call(1, 'add', { a: 1, b: 1 })])
  t.match(batch.json(), { error: { code: -32600, message: /batches are not supported/ } })

  const notification = await post({ ...BOTH, 'mcp-session-id': session }, { jsonrpc: '2.0', method: 'notifications/initialized' })
  t.equal(notification.statusCode, 202, 'notification: 202')
  t.equal(notification.body, '', 'with no body')
  const response = await post({ ...BOTH, 'mcp-session-id': session }, { jsonrpc: '2.0', id: 'srv-99', result: {} })
  t.equal(response.statusCode, 202, 'response: 202')

  for (const method of ['PUT', 'PATCH', 'HEAD'] as const) {
    const other = await app.inject({ method, url: '/mcp', headers: { 'mcp-session-id': session } })
    t.equal(other.statusCode, 405, `${method}: 405`)
    t.equal(other.headers.allow, 'GET, POST, DELETE', 'with Allow')
  }

  const getJson = await app.inject({ method: 'GET', url: '/mcp', headers: { accept: 'application/json', 'mcp-session-id': session } })
  t.equal(getJson.statusCode, 406, 'GET that does not take an event stream: 406')
  t.equal((await app.inject({ method: 'GET', url: '/mcp', headers: { accept: 'text/event-stream' } })).statusCode, 400, 'GET without a session: 400')
  t.equal((await app.inject({ method: 'DELETE', url: '/mcp' })).statusCode, 400, 'DELETE without a session: 400')
})

t.test('DELETE ends the session; afterwards its id is unknown (404) everywhere', async (t) => {
  const app = await catalogApp(t)
  const session = await initialize(app)
  const deleted = await app.inject({ method: 'DELETE', url: '/mcp', headers: { 'mcp-session-id': session } })
  t.equal(deleted.statusCode, 204)
  t.equal(app.mcp.sessionCount, 0, 'the session is gone')
  const headers = { ...BOTH, 'mcp-session-id': session }
  t.equal((await app.inject({ method: 'POST', url: '/mcp', headers, payload: call(1, 'add', { a: 1, b: 1 }) })).statusCode, 404, 'POST: 404')
  t.equal((await app.inject({ method: 'GET', url: '/mcp', headers: { accept: 'text/event-stream', 'mcp-session-id': session } })).statusCode, 404, 'GET: 404')
  t.equal((await app.inject({ method: 'DELETE', url: '/mcp', headers: { 'mcp-session-id': session } })).statusCode, 404, 'DELETE again: 404')
})

t.test('a request whose session ends while it runs is answered 404, not a silent 202', async (t) => {
  const app = await catalogApp(t)
  const session = await initialize(app)
  const headers = { ...BOTH, accept: 'application/json', 'mcp-session-id': session }
  const pending = app.inject({ method: 'POST', url: '/mcp', headers, payload: call(1, 'wait_for_abort', { tag: 'session-deleted' }) })
  // The handler is running (it waits for its abort) once the POST has been taken in.
  await sleep(100)
  t.equal((await app.inject({ method: 'DELETE', url: '/mcp', headers: { 'mcp-session-id': session } })).statusCode, 204)
  const answered = await pending
  t.ok(probes.aborted.includes('session-deleted'), 'the handler ran and was aborted by the end of its session')
  t.equal(answered.statusCode, 404, 'the client learns its session is gone and starts a new one')
  t.match(answered.json(), { error: { message: /Session not found/ } })
})

t.test('sessions belong to their transport and to their principal', async (t) => {
  const keys = ['key-one-0123456789abcdef', 'key-two-0123456789abcdef']
  const app = await catalogApp(t, { auth: { type: 'apikey', options: { keys } } })
  const reply = await app.inject({ method: 'POST', url: '/mcp', headers: { ...BOTH, 'x-api-key': keys[0] as string }, payload: INIT })
  const session = reply.headers['mcp-session-id'] as string
  t.ok(session)
  const payload = call(1, 'whoami')
  const stranger = await app.inject({ method: 'POST', url: '/mcp', headers: { ...BOTH, 'x-api-key': keys[1] as string, 'mcp-session-id': session }, payload })
  t.equal(stranger.statusCode, 403, 'another principal cannot use the session')
  t.match(stranger.json(), { error: { message: /another principal/ } })
  const noKey = await app.inject({ method: 'POST', url: '/mcp', headers: { ...BOTH, 'mcp-session-id': session }, payload })
  t.equal(noKey.statusCode, 401, 'auth runs on the Streamable HTTP routes')
  const owner = await app.inject({ method: 'POST', url: '/mcp', headers: { ...BOTH, 'x-api-key': keys[0] as string, 'mcp-session-id': session }, payload })
  t.match(owner.body, /apikey:/, 'the owner gets its principal in ctx.auth')
  const legacy = await app.inject({ method: 'POST', url: `/messages?sessionId=${session}`, headers: { 'content-type': 'application/json', 'x-api-key': keys[0] as string }, payload })
  t.equal(legacy.statusCode, 404, 'a Streamable HTTP session is unknown to the legacy endpoint')
})

t.test('at capacity, initialize answers 503 with Retry-After', async (t) => {
  const app = await catalogApp(t, { maxSessions: 1 })
  await initialize(app)
  const full = await app.inject({ method: 'POST', url: '/mcp', headers: BOTH, payload: INIT })
  t.equal(full.statusCode, 503)
  t.equal(full.headers['retry-after'], '5')
})

t.test('stateless mode: every POST stands alone', async (t) => {
  const app = await catalogApp(t, { stateless: true })
  const init = await app.inject({ method: 'POST', url: '/mcp', headers: BOTH, payload: INIT })
  t.equal(init.statusCode, 200)
  t.notOk(init.headers['mcp-session-id'], 'no session id is issued')
  t.match(init.json(), { result: { protocolVersion: '2025-11-25' } })
  const sum = await app.inject({ method: 'POST', url: '/mcp', headers: { ...BOTH, 'mcp-protocol-version': '2025-11-25' }, payload: call(7, 'add', { a: 2, b: 3 }) })
  t.equal(sum.statusCode, 200)
  t.match(sum.headers['content-type'], /^application\/json/, 'a simple call is answered as JSON')
  t.same(sum.json(), { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: '5' }] } })
  const streamed = await app.inject({
    method: 'POST', url: '/mcp', headers: { ...BOTH, accept: 'text/event-stream', 'mcp-protocol-version': '2025-11-25' }, payload: call(7, 'add', { a: 2, b: 3 })
  })
  t.match(streamed.headers['content-type'], /^text\/event-stream/)
  const events = eventsOf(streamed.body)
  t.equal(events.length, 1, 'no priming: a stateless stream cannot be resumed')
  t.same(JSON.parse(events[0]?.data ?? ''), { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: '5' }] } })
  const upgraded = await app.inject({ method: 'POST', url: '/mcp', headers: { ...BOTH, 'mcp-protocol-version': '2025-11-25' }, payload: call(9, 'progress', { steps: 1 }, 'tok') })
  t.match(upgraded.headers['content-type'], /^text\/event-stream/, 'a call that reports progress is upgraded to a stream')
  t.same(eventsOf(upgraded.body).map((event) => JSON.parse(event.data ?? '').method ?? 'response'),
    ['notifications/progress', 'notifications/message', 'response'], 'unprimed, without ids')
  const json = await app.inject({ method: 'POST', url: '/mcp', headers: { ...BOTH, accept: 'application/json' }, payload: { jsonrpc: '2.0', id: 8, method: 'tools/list' } })
  const weather = json.json().result.tools.find((tool: { name: string }) => tool.name === 'weather')
  t.notOk(weather.outputSchema, 'no version header: 2025-03-26 is assumed (no outputSchema)')
  t.equal(app.mcp.sessionCount, 0, 'nothing is kept between requests')
  t.equal((await app.inject({ method: 'POST', url: '/mcp', headers: BOTH, payload: { jsonrpc: '2.0', method: 'notifications/initialized' } })).statusCode, 202)
  t.equal((await app.inject({ method: 'POST', url: '/mcp', headers: { ...BOTH, 'mcp-protocol-version': 'nope' }, payload: call(1, 'add', { a: 1, b: 1 }) })).statusCode, 400)
  for (const method of ['GET', 'DELETE'] as const) {
    const reply = await app.inject({ method, url: '/mcp', headers: { accept: 'text/event-stream' } })
    t.equal(reply.statusCode, 405, `${method}: 405 without sessions`)
    t.equal(reply.headers.allow, 'POST')
  }
})

t.test('endpoint options: a custom path under a prefix, or no Streamable HTTP at all', async (t) => {
  const custom = await catalogApp(t, { streamableEndpoint: '/rpc', prefix: '/api' })
  t.ok(await initialize(custom, '2025-11-25', '/api/rpc'), 'served at the prefixed custom path')
  t.equal((await custom.inject({ method: 'POST', url: '/mcp', headers: BOTH, payload: INIT })).statusCode, 404)
  const off = await catalogApp(t, { streamableEndpoint: false })
  t.equal((await off.inject({ method: 'POST', url: '/mcp', headers: BOTH, payload: INIT })).statusCode, 404, 'false disables it')
  t.equal((await off.inject({ method: 'POST', url: '/messages', headers: { 'content-type': 'application/json' }, payload: '{}' })).statusCode, 400, 'the legacy routes stay')
})

t.test('CORS headers and preflights on the Streamable HTTP endpoint', async (t) => {
  const app = await catalogApp(t, { cors: { allowOrigins: ['https://app.example.com'] } })
  const preflight = await app.inject({
    method: 'OPTIONS',
    url: '/mcp',
    headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'mcp-session-id' }
  })
  t.equal(preflight.statusCode, 204)
  t.match(preflight.headers['access-control-allow-headers'], /Mcp-Session-Id, Mcp-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID/)
  const reply = await app.inject({ method: 'POST', url: '/mcp', headers: { ...BOTH, origin: 'https://app.example.com' }, payload: INIT })
  t.equal(reply.headers['access-control-allow-origin'], 'https://app.example.com')
  t.match(reply.headers['access-control-expose-headers'], /Mcp-Session-Id/, 'a browser client can read the session id')
  const session = reply.headers['mcp-session-id'] as string
  const json = await app.inject({ method: 'POST', url: '/mcp', headers: { ...BOTH, origin: 'https://app.example.com', 'mcp-session-id': session }, payload: call(1, 'add', { a: 1, b: 1 }) })
  t.match(json.headers['content-type'], /^application\/json/)
  t.equal(json.headers['access-control-allow-origin'], 'https://app.example.com', 'JSON answers carry them')
  const streamed = await app.inject({ method: 'POST', url: '/mcp', headers: { ...BOTH, origin: 'https://app.example.com', 'mcp-session-id': session }, payload: call(2, 'progress', { steps: 1 }, 'tok') })
  t.match(streamed.headers['content-type'], /^text\/event-stream/)
  t.equal(streamed.headers['access-control-allow-origin'], 'https://app.example.com', 'event-stream answers (upgraded mid-call) carry them too')
  t.match(streamed.headers['access-control-expose-headers'], /Mcp-Session-Id/)
  const foreign = await app.inject({ method: 'POST', url: '/mcp', headers: { ...BOTH, origin: 'https://evil.example' }, payload: INIT })
  t.equal(foreign.statusCode, 403, 'a foreign Origin is refused')
})

t.test('DNS-rebinding protection on a loopback listener: Host and Origin', async (t) => {
  const { base } = await listeningCatalogApp(t)
  const url = `${base}/mcp`
  const port = new URL(base).port
  const rebound = await raw(url, 'POST', { ...BOTH, host: 'evil.example.com', origin: 'http://evil.example.com' }, INIT)
  t.equal(rebound.status, 403, 'a foreign Host is refused')
  t.match(JSON.parse(await rebound.text()), { id: null, error: { message: /Host header is not allowed/ } })
  const foreignOrigin = await raw(url, 'POST', { ...BOTH, origin: 'http://evil.example.com' }, INIT)
  t.equal(foreignOrigin.status, 403, 'a foreign Origin is refused')
  await foreignOrigin.text()
  for (const host of [`localhost:${port}`, `127.0.0.1:${port}`]) {
    const ok = await raw(url, 'POST', { ...BOTH, host, origin: `http://${host}` }, INIT)
    t.equal(ok.status, 200, `Host ${host} with its own Origin is served`)
    t.ok(ok.headers['mcp-session-id'])
    await ok.text()
  }
  const session = await openSession(url)
  const get = await raw(url, 'GET', { accept: 'text/event-stream', host: 'evil.example.com', 'mcp-session-id': session })
  t.equal(get.status, 403, 'GET is guarded too')
  await get.text()
})

t.test('one standalone GET stream per session: a second one is 409', async (t) => {
  const { base } = await listeningCatalogApp(t)
  const url = `${base}/mcp`
  const session = await openSession(url)
  const headers = { accept: 'text/event-stream', 'mcp-session-id': session }
  const first = await raw(url, 'GET', headers)
  t.teardown(() => first.destroy())
  t.equal(first.status, 200)
  t.match(first.headers['content-type'], /^text\/event-stream/)
  t.match(await first.next(), { id: '0_1', data: '' }, 'primed')
  const second = await raw(url, 'GET', headers)
  t.equal(second.status, 409)
  t.match(JSON.parse(await second.text()), { id: null, error: { message: /already has a GET stream open/ } })
  first.destroy()
  await sleep(50)
  const again = await raw(url, 'GET', headers)
  t.equal(again.status, 200, 'once the first is gone, a new one may open')
  again.destroy()
})

t.test('a request id already in flight on the session is refused', async (t) => {
  const { base } = await listeningCatalogApp(t)
  const url = `${base}/mcp`
  const session = await openSession(url)
  const headers = { ...BOTH, 'mcp-session-id': session }
  const waiting = await raw(url, 'POST', headers, call(5, 'wait_for_abort', { tag: 'duplicate-id' }, 'p'))
  t.teardown(() => waiting.destroy())
  t.match(await waiting.next(), { data: '' }, 'primed')
  t.match(messageOf(await waiting.next()), { method: 'notifications/progress' }, 'the handler runs')
  const duplicate = await raw(url, 'POST', headers, call(5, 'add', { a: 1, b: 1 }))
  t.equal(duplicate.status, 400)
  t.match(JSON.parse(await duplicate.text()), { error: { message: /already in flight/ } })
  const cancelled = await raw(url, 'POST', headers, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5 } })
  t.equal(cancelled.status, 202)
  const rest = await waiting.rest()
  t.same(rest, [], 'a cancelled request gets no answer, and its stream ends')
})
