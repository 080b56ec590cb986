// Must-show 6 of issue 21: ctx.http, seen by a handler called by the official clients over
// Streamable HTTP (2025-11-25), legacy SSE and 2026-07-28, and undefined on stdio; the credential
// never among the headers, there only when asked for; forwardable() keeping to its rules.
import t, { type Test } from 'tap'
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client'
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import mcp, { type HandlerContext, type MCPPluginOptions } from '../../src/index.js'
import { RequestHttp, kHttpFacts, type HttpPeer } from '../../src/protocol/http.js'
import { connectSse, connectStdio, connectStreamable } from '../helpers/clients.js'
import { signHmac } from '../helpers/auth-keys.js'

const SECRET = 'http-context-tests-secret-at-least-32-bytes'
const TOKEN = signHmac(SECRET, { sub: 'carol', exp: Math.floor(Date.now() / 1000) + 600 })
const KEY = 'an-api-key-of-some-length-0123456789'

/** What a handler reports: everything but the credential, or the credential and forwardable(). */
function report (ctx: HandlerContext, ask: boolean): Record<string, unknown> {
  const http = ctx.http
  if (http === undefined) return { http: null }
  if (ask) {
    return {
      credential: http.credential ?? null,
      forwardable: http.forwardable(['X-Tenant', 'cookie', 'host', 'content-length', 'mcp-session-id', 'mcp-protocol-version', 'transfer-encoding'])
    }
  }
  return { method: http.method, path: http.path, remoteAddress: http.remoteAddress ?? null, headers: http.headers, frozen: Object.isFrozen(http.headers) }
}

async function contextApp (t: Test, options: Partial<MCPPluginOptions>, fastify: FastifyServerOptions = {}): Promise<{ app: FastifyInstance, base: string }> {
  const app = Fastify({ forceCloseConnections: true, ...fastify })
  t.teardown(() => app.close())
  await app.register(mcp, { name: 'ctx', version: '1.0.0', ...options })
  app.mcp.tool({ name: 'seen' }, async (_args, ctx) => ({ content: [{ type: 'text', text: 'seen' }], structuredContent: report(ctx, false) }))
  app.mcp.tool({ name: 'credential' }, async (_args, ctx) => ({ content: [{ type: 'text', text: 'credential' }], structuredContent: report(ctx, true) }))
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  return { app, base }
}

type Call = (name: string) => Promise<Record<string, unknown>>
const CLIENTS: Array<{ label: string, path: string, connect: (base: string, url: string, headers: Record<string, string>) => Promise<{ call: Call, close: () => Promise<void> }> }> = [
  {
    label: 'Streamable HTTP, a 2025-11-25 session',
    path: '/mcp',
    async connect (base, url, headers) {
      const { client } = await connectStreamable(`${base}${url}`, { headers })
      return { call: async (name) => (await client.callTool({ name })).structuredContent as Record<string, unknown>, close: async () => { await client.close() } }
    }
  },
  {
    label: 'legacy SSE',
    path: '/messages',
    async connect (base, _url, headers) {
      const { client } = await connectSse(`${base}/sse`, { headers })
      return { call: async (name) => (await client.callTool({ name })).structuredContent as Record<string, unknown>, close: async () => { await client.close() } }
    }
  },
  {
    label: '2026-07-28 requests',
    path: '/mcp',
    async connect (base, url, headers) {
      const client = new ModernClient({ name: 'sdk-v2', version: '2.4.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
      await client.connect(new ModernTransport(new URL(`${base}${url}`), { requestInit: { headers } }))
      return { call: async (name) => (await client.callTool({ name, arguments: {} })).structuredContent as Record<string, unknown>, close: async () => { await client.close() } }
    }
  }
]

for (const { label, path, connect } of CLIENTS) {
  t.test(`ctx.http over ${label}`, async (t) => {
    t.test('JWT: the headers without the credential; the credential when asked', async (t) => {
      const { base } = await contextApp(t, { auth: { type: 'jwt', options: { secret: SECRET, algorithms: ['HS256'] } } })
      const client = await connect(base, '/mcp', { authorization: `Bearer ${TOKEN}`, cookie: 'sid=s3cr3t', 'x-tenant': 'acme' })
      t.teardown(client.close)
      const seen = await client.call('seen')
      t.match(seen, { method: 'POST', path, remoteAddress: '127.0.0.1', frozen: true })
      const headers = seen.headers as Record<string, string>
      t.equal(headers['x-tenant'], 'acme')
      t.equal(headers.host, base.slice('http://'.length), 'the request\'s own headers')
      t.notOk('authorization' in headers || 'cookie' in headers, 'no credential among the headers')
      t.notMatch(JSON.stringify(seen), TOKEN, 'the token is nowhere unless asked for')
      t.notMatch(JSON.stringify(seen), 's3cr3t')

      t.strictSame(await client.call('credential'), {
        credential: { type: 'bearer', value: TOKEN, header: 'authorization' },
        // Listed: x-tenant and cookie (on purpose); never: host, content-length, mcp-*, hop-by-hop.
        forwardable: { 'x-tenant': 'acme', cookie: 'sid=s3cr3t', authorization: `Bearer ${TOKEN}` }
      })
    })

    t.test('an API key: its header is no header of ctx.http, and is forwarded in it', async (t) => {
      const { base } = await contextApp(t, { auth: { type: 'apikey', options: { keys: [KEY], headerName: 'X-Key' } } })
      const client = await connect(base, '/mcp', { 'x-key': KEY, 'x-tenant': 'acme' })
      t.teardown(client.close)
      const seen = await client.call('seen')
      t.notOk('x-key' in (seen.headers as Record<string, string>))
      t.notMatch(JSON.stringify(seen), KEY)
      t.strictSame(await client.call('credential'), { credential: { type: 'apikey', value: KEY, header: 'x-key' }, forwardable: { 'x-tenant': 'acme', 'x-key': KEY } })
    })

    t.test('without auth: no credential, and the address behind a trusted proxy', async (t) => {
      const { base } = await contextApp(t, {}, { trustProxy: true })
      const client = await connect(base, '/mcp', { 'x-forwarded-for': '203.0.113.9', authorization: 'Bearer unverified' })
      t.teardown(client.close)
      const seen = await client.call('seen')
      t.equal(seen.remoteAddress, '203.0.113.9', 'request.ip, as Fastify computes it')
      t.notOk('authorization' in (seen.headers as Record<string, string>), 'an unverified credential is still a credential')
      t.strictSame(await client.call('credential'), { credential: null, forwardable: {} })
    })
  })
}

t.test('an API key in the query string: not in path, forwarded as the key header', async (t) => {
  const { base } = await contextApp(t, { auth: { type: 'apikey', options: { keys: [KEY], headerName: 'X-Key', queryParam: 'key' } } })
  const { client } = await connectStreamable(`${base}/mcp?key=${KEY}`)
  t.teardown(() => client.close())
  const seen = (await client.callTool({ name: 'seen' })).structuredContent as Record<string, unknown>
  t.equal(seen.path, '/mcp', 'the path leaves the query string out')
  t.notMatch(JSON.stringify(seen), KEY)
  t.strictSame((await client.callTool({ name: 'credential' })).structuredContent, { credential: { type: 'apikey', value: KEY, header: 'x-key' }, forwardable: { 'x-key': KEY } })
})

t.test('ctx.http is undefined on stdio', async (t) => {
  const { client } = await connectStdio('stdio-http-context-server.ts')
  t.teardown(() => client.close())
  t.strictSame((await client.callTool({ name: 'http' })).structuredContent, { defined: false, has: true })
})

t.test('forwardable(): hop-by-hop headers, also those Connection names, never pass', async (t) => {
  const peer: HttpPeer = {
    httpVersion: '1.1',
    socket: { remoteAddress: '::1' },
    method: 'POST',
    url: '/mcp?x=1',
    headers: {
      connection: 'keep-alive, X-Hop',
      'x-hop': 'h',
      te: 'trailers',
      'keep-alive': 'timeout=5',
      upgrade: 'h2c',
      'proxy-authorization': 'Basic x',
      'x-tenant': 'acme',
      'x-multi': ['a', 'b'],
      constructor: undefined
    }
  }
  const http = new RequestHttp(peer)
  t.equal(http.remoteAddress, '::1', 'without the transport\'s facts: the socket\'s address')
  t.equal(http.credential, undefined)
  t.strictSame({ ...http.forwardable(['x-hop', 'te', 'keep-alive', 'upgrade', 'connection', 'proxy-authorization', 'x-tenant', 'x-multi', 'constructor', 'toString']) }, { 'x-tenant': 'acme', 'x-multi': 'a, b' })
  t.strictSame({ ...http.forwardable() }, {}, 'nothing without a list or a credential')
  t.notOk('proxy-authorization' in http.headers, 'a proxy credential is a credential')

  peer[kHttpFacts] = { remoteAddress: '198.51.100.7', credential: { type: 'apikey', value: 'k', header: 'x-key' }, credentialHeader: 'x-key' }
  const detached = new RequestHttp(peer).detach()
  ;(peer.headers as Record<string, string>)['x-tenant'] = 'changed later'
  t.strictSame({ method: detached.method, path: detached.path, remoteAddress: detached.remoteAddress, credential: detached.credential },
    { method: 'POST', path: '/mcp', remoteAddress: '198.51.100.7', credential: { type: 'apikey', value: 'k', header: 'x-key' } }, 'a task\'s copy')
  t.strictSame({ ...detached.forwardable(['x-tenant']) }, { 'x-tenant': 'acme', 'x-key': 'k' }, 'copied when the task started')
  t.ok(Object.isFrozen(detached))
})
