// ctx.auth is the principal verified for the HTTP request that carried the call, not the one
// that opened the session; and a stream opened with a token ends when that token expires
// (issue 10, defect 2). Real sockets, the official SDK client with a credential that changes
// under it, the way a client refreshing its tokens behaves.
import t, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { bearer, registerWhoami, whoami } from '../helpers/auth-app.js'
import { nowSeconds, signHmac } from '../helpers/auth-keys.js'
import { serve } from '../helpers/serve.js'
import { endpointOf, openRawStream } from '../helpers/sse-raw.js'
import { sleep, until } from '../helpers/wait.js'

const SECRET = 'per-request-shared-secret-0123456789abcdef'
const ISSUER = 'https://idp.test'
const token = (scope: string, ttlSeconds = 300, sub = 'alice'): string =>
  signHmac(SECRET, { iss: ISSUER, sub, scope, exp: nowSeconds() + ttlSeconds })

async function jwtApp (t: Test): Promise<{ base: string, app: FastifyInstance }> {
  // No clock tolerance: a token is refused the moment its exp passes.
  return await serve(t, { auth: { type: 'jwt', options: { secret: SECRET, algorithms: ['HS256'], issuer: ISSUER, clockToleranceSeconds: 0 } } }, (app) => { registerWhoami(app.mcp) })
}

/** A fetch that sends whatever token the client holds now, and records what it sent. */
function tokenFetch (): { fetch: typeof fetch, use: (token: string) => void, sent: Array<{ method: string, token: string }> } {
  let current = ''
  const sent: Array<{ method: string, token: string }> = []
  return {
    sent,
    use: (next) => { current = next },
    fetch: async (input, init) => {
      const headers = new Headers(init?.headers)
      headers.set('authorization', `Bearer ${current}`)
      sent.push({ method: init?.method ?? 'GET', token: current })
      return await fetch(input, { ...init, headers })
    }
  }
}

t.test('Streamable HTTP: each call sees the principal of its own request', async (t) => {
  const { base } = await jwtApp(t)
  const credential = tokenFetch()
  credential.use(token('admin read'))
  const client = new Client({ name: 'refreshing', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { fetch: credential.fetch }))
  t.teardown(() => client.close())
  t.same((await whoami(client)).scopes, ['admin', 'read'], 'the opening token')
  credential.use(token('read'))
  const later = await whoami(client)
  t.same(later.scopes, ['read'], 'a read-only token of the same subject: no admin in ctx.auth')
  t.match(later, { method: 'jwt', kind: 'user', issuer: ISSUER, subject: 'alice' })
})

t.test('legacy SSE: each POSTed call sees the principal of its own POST', async (t) => {
  const { base } = await jwtApp(t)
  const credential = tokenFetch()
  credential.use(token('admin read'))
  const client = new Client({ name: 'refreshing', version: '1.0.0' })
  await client.connect(new SSEClientTransport(new URL(`${base}/sse`), { fetch: credential.fetch }))
  t.teardown(() => client.close())
  t.same((await whoami(client)).scopes, ['admin', 'read'])
  credential.use(token('read'))
  t.same((await whoami(client)).scopes, ['read'], 'the stream was opened with admin; this POST carries read only')
})

t.test('Streamable HTTP: the GET stream ends with its token; the SDK client comes back with a fresh one', async (t) => {
  const { base, app } = await jwtApp(t)
  const credential = tokenFetch()
  // Long enough for the client to connect on a busy machine, short enough to wait for.
  const shortLived = token('read', 4)
  credential.use(shortLived)
  const client = new Client({ name: 'refreshing', version: '1.0.0' })
  const logs: unknown[] = []
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => { logs.push(n.params.data) })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { fetch: credential.fetch }))
  t.teardown(() => client.close())
  const gets = (): Array<{ method: string, token: string }> => credential.sent.filter((s) => s.method === 'GET')
  await until(() => gets().length === 1, { timeoutMs: 5000, what: 'the GET stream' })
  // The client refreshes its token; its open stream still runs on the old one until that expires.
  const fresh = token('read', 300)
  credential.use(fresh)
  await until(() => gets().length >= 2, { timeoutMs: 10_000, what: 'the client to reopen its GET stream' })
  t.equal(gets()[1]?.token, fresh, 'the stream was reopened with the fresh token')
  const expired = await fetch(`${base}/mcp`, { method: 'POST', headers: { ...bearer(shortLived), 'content-type': 'application/json' }, body: '{}' })
  t.equal(expired.status, 401, 'the first token has expired by now')
  // The new stream delivers: a broadcast reaches the client.
  await until(() => { app.mcp.broadcast({ method: 'notifications/message', params: { level: 'info', data: 'after refresh' } }); return logs.length > 0 }, { timeoutMs: 5000, what: 'a broadcast on the new stream' })
  t.same(logs[0], 'after refresh')
  t.same((await whoami(client)).subject, 'alice', 'the session lives on, bound to the identity')
})

t.test('legacy SSE: the stream (and its session) ends with its token; a fresh token opens a new one', async (t) => {
  const { base } = await jwtApp(t)
  const shortLived = token('read', 3)
  const stream = await openRawStream(`${base}/sse`, bearer(shortLived))
  t.teardown(() => { stream.destroy() })
  t.equal(stream.response.statusCode, 200)
  const endpoint = new URL(endpointOf(await stream.next()), base)
  await new Promise<void>((resolve) => { stream.response.once('end', resolve) })
  t.pass('the server ended the stream')
  const fresh = token('read', 300)
  const post = await fetch(endpoint, { method: 'POST', headers: { ...bearer(fresh), 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }) })
  t.equal(post.status, 404, 'the session ended with its stream')
  const credential = tokenFetch()
  credential.use(fresh)
  const client = new Client({ name: 'refreshing', version: '1.0.0' })
  await client.connect(new SSEClientTransport(new URL(`${base}/sse`), { fetch: credential.fetch }))
  t.teardown(() => client.close())
  t.same((await whoami(client)).subject, 'alice', 'the SDK client connects again with the fresh token')
})

t.test('a token valid for a month keeps its stream (no timer overflow ends it at once)', async (t) => {
  const { base } = await jwtApp(t)
  // 30 days is past the longest delay Node timers honour (~24.8 days): a naive timer fires after 1 ms.
  const stream = await openRawStream(`${base}/sse`, bearer(token('read', 30 * 24 * 3600)))
  t.teardown(() => { stream.destroy() })
  endpointOf(await stream.next())
  await sleep(200)
  t.notOk(stream.response.readableEnded || stream.response.destroyed, 'still open')
})
