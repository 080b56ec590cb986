// One client cannot lock everyone out (issue 10, defect 4): sessions are counted per client (its
// identity with auth, its address without), and a session whose client never completes
// initialization, or never comes back after it, is closed after `sessionInitTimeoutMs`.
// Before: 10,000 `initialize` calls holding no connection filled `maxSessions`, and everybody
// else got 503 until the idle timeout (30 min). Real sockets; clients on distinct loopback
// addresses (127.0.0.2, 127.0.0.3) stand for distinct hosts.
import { request as httpRequest } from 'node:http'
import t, { type Test } from 'tap'
import type { MCPPluginOptions } from '../../src/index.js'
import { resolveServerOptions } from '../../src/schemas/resolve.js'
import { addressKey } from '../../src/transports/http/caller.js'
import { bearer } from '../helpers/auth-app.js'
import { nowSeconds, signHmac } from '../helpers/auth-keys.js'
import { serve } from '../helpers/serve.js'
import { endpointOf, openRawStream } from '../helpers/sse-raw.js'
import { until } from '../helpers/wait.js'

const SECRET = 'quota-shared-secret-0123456789abcdef0123'
const jwt = (sub: string): string => signHmac(SECRET, { sub, exp: nowSeconds() + 300 })
const JWT_AUTH: NonNullable<MCPPluginOptions['auth']> = { type: 'jwt', options: { secret: SECRET, algorithms: ['HS256'] } }

interface Answer { status: number, headers: Record<string, string | string[] | undefined>, body: string }

/** One POST from `from` (a loopback address of this host), read to the end. */
async function post (url: string, message: unknown, headers: Record<string, string> = {}, from = '127.0.0.1'): Promise<Answer> {
  return await new Promise((resolve, reject) => {
    const req = httpRequest(url, {
      method: 'POST',
      localAddress: from,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }
    }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => { body += chunk })
      res.on('end', () => { resolve({ status: res.statusCode ?? 0, headers: res.headers, body }) })
    })
    req.on('error', reject)
    req.end(JSON.stringify(message))
  })
}

const initialize = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'q', version: '0' } } }
const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' }
const ping = { jsonrpc: '2.0', id: 1, method: 'ping' }

async function init (base: string, headers: Record<string, string> = {}, from?: string): Promise<Answer> {
  return await post(`${base}/mcp`, initialize, headers, from)
}
const sessionOf = (answer: Answer): string => {
  const id = answer.headers['mcp-session-id']
  if (typeof id !== 'string') throw new Error(`no session (HTTP ${answer.status}: ${answer.body})`)
  return id
}

function assertQuotaRefusal (t: Test, answer: Answer, what: string): void {
  t.equal(answer.status, 429, `${what}: 429`)
  t.equal(answer.headers['retry-after'], '5', 'Retry-After')
  t.same(JSON.parse(answer.body), { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Too many sessions for this client, retry later' } })
}

t.test('a flood of initialize from one address cannot lock out another', async (t) => {
  const { app, base } = await serve(t, { maxSessions: 20, maxSessionsPerClient: 5 })
  const flood = await Promise.all(Array.from({ length: 50 }, async () => await init(base, {}, '127.0.0.2')))
  t.equal(flood.filter((a) => a.status === 200).length, 5, 'the flooding client got its share')
  const refused = flood.filter((a) => a.status !== 200)
  t.equal(refused.length, 45)
  assertQuotaRefusal(t, refused[0] as Answer, 'past its share')
  t.equal(app.mcp.sessionCount, 5)
  const other = await init(base, {}, '127.0.0.3')
  t.equal(other.status, 200, 'another client still gets a session')
  const id = sessionOf(other)
  t.equal((await post(`${base}/mcp`, initialized, { 'mcp-session-id': id }, '127.0.0.3')).status, 202)
  t.equal((await post(`${base}/mcp`, ping, { 'mcp-session-id': id }, '127.0.0.3')).status, 200, 'and is served')
})

t.test('the global bound still answers 503 once every share is taken', async (t) => {
  const { base } = await serve(t, { maxSessions: 2, maxSessionsPerClient: 5 })
  t.equal((await init(base, {}, '127.0.0.2')).status, 200)
  t.equal((await init(base, {}, '127.0.0.3')).status, 200)
  const full = await init(base, {}, '127.0.0.4')
  t.equal(full.status, 503)
  t.equal(full.headers['retry-after'], '5')
})

t.test('with auth the share is per identity, whatever the address, across both transports', async (t) => {
  const { app, base } = await serve(t, { auth: JWT_AUTH, maxSessionsPerClient: 2 })
  const alice = bearer(jwt('alice'))
  const stream = await openRawStream(`${base}/sse`, alice)
  t.teardown(() => { stream.destroy() })
  t.equal(stream.response.statusCode, 200, 'a legacy SSE session counts')
  t.equal((await init(base, alice, '127.0.0.2')).status, 200, 'a Streamable HTTP session, from another address')
  assertQuotaRefusal(t, await init(base, alice, '127.0.0.3'), 'a third session of alice')
  const refusedStream = await openRawStream(`${base}/sse`, alice)
  t.equal(refusedStream.response.statusCode, 429, 'the legacy endpoint refuses her too')
  refusedStream.destroy()
  t.equal((await init(base, bearer(jwt('bob')))).status, 200, 'bob, from the same address as alice, is not affected')
  stream.destroy()
  await until(() => app.mcp.sessionCount === 2, { timeoutMs: 5000, what: 'her stream to close' })
  t.equal((await init(base, alice)).status, 200, 'her closed stream freed its slot')
})

t.test('a session whose client never comes back after initialize expires after sessionInitTimeoutMs', async (t) => {
  const { app, base } = await serve(t, { sessionInitTimeoutMs: 3000, maxSessionsPerClient: 2 })
  const abandoned = sessionOf(await init(base))
  const kept = sessionOf(await init(base))
  t.equal((await post(`${base}/mcp`, initialized, { 'mcp-session-id': kept })).status, 202, 'this client comes back')
  assertQuotaRefusal(t, await init(base), 'both slots taken')
  await until(() => app.mcp.sessionCount === 1, { timeoutMs: 15_000, what: 'the abandoned session to expire' })
  t.equal((await post(`${base}/mcp`, ping, { 'mcp-session-id': abandoned })).status, 404, 'the abandoned session is gone')
  t.equal((await post(`${base}/mcp`, ping, { 'mcp-session-id': kept })).status, 200, 'the established one lives on')
  t.equal((await init(base)).status, 200, 'and the slot is free again')
})

t.test('a legacy SSE stream that never initializes is closed after sessionInitTimeoutMs', async (t) => {
  const { app, base } = await serve(t, { sessionInitTimeoutMs: 3000 })
  const idle = await openRawStream(`${base}/sse`)
  t.teardown(() => { idle.destroy() })
  endpointOf(await idle.next())
  const used = await openRawStream(`${base}/sse`)
  t.teardown(() => { used.destroy() })
  const endpoint = new URL(endpointOf(await used.next()), base)
  const send = async (message: unknown): Promise<number> =>
    (await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(message) })).status
  t.equal(await send(initialize), 202)
  t.equal(await send(initialized), 202)
  await new Promise<void>((resolve) => { idle.response.once('end', resolve) })
  t.pass('the stream of the session that never initialized was ended')
  t.equal(app.mcp.sessionCount, 1)
  t.equal(await send(ping), 202, 'the initialized session lives on')
})

t.test('maxSessionsPerClient and sessionInitTimeoutMs are validated, with safe defaults', async (t) => {
  const options = resolveServerOptions({ transport: { type: 'sse' } })
  t.match(options.transport, { options: { maxSessionsPerClient: 100, sessionInitTimeoutMs: 30_000 } })
  t.throws(() => resolveServerOptions({ transport: { type: 'sse', options: { maxSessionsPerClient: 0, sessionInitTimeoutMs: 'soon' } } }), {
    code: 'FST_MCP_INVALID_OPTIONS',
    problems: [
      { path: 'transport.options.maxSessionsPerClient', message: 'expected an integer of at least 1, got 0' },
      { path: 'transport.options.sessionInitTimeoutMs', message: /^expected an integer of at least 1, got / }
    ]
  })
})

t.test('addresses: IPv6 counts by /64, IPv4-mapped as IPv4', async (t) => {
  t.equal(addressKey('203.0.113.7'), '203.0.113.7')
  t.equal(addressKey('::ffff:203.0.113.7'), '203.0.113.7')
  t.equal(addressKey('2001:db8::1'), '2001:db8:0:0::/64')
  t.equal(addressKey('2001:DB8:0:0:ffff:1:2:3'), '2001:db8:0:0::/64', 'one host, many addresses: one client')
  t.equal(addressKey('2001:db8:0:0:1::2%eth0'), '2001:db8:0:0::/64')
  t.equal(addressKey('2001:db8:0:1::1'), '2001:db8:0:1::/64', 'another /64: another client')
  t.equal(addressKey('::1'), '0:0:0:0::/64')
  t.equal(addressKey('64:ff9b::192.0.2.33'), '64:ff9b:0:0::/64')
})
