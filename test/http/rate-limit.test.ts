// Per-client budgets over HTTP: `rateLimit` counts a client's JSON-RPC requests (not notifications,
// not stream GETs); the (N+1)th in the window answers 429 with Retry-After and the rate-limit
// headers, as does a definition's own `rateLimit` past its budget. Clients are told apart as
// `maxSessionsPerClient` tells them: the identity with auth.
import t, { type Test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import mcp, { Type } from '../../src/index.js'
import { connectStreamable } from '../helpers/clients.js'
import { jwtAuth, token } from '../helpers/authz.js'
import { headersFor, modern } from '../helpers/modern.js'

async function server (t: Test, options: Record<string, unknown>): Promise<FastifyInstance> {
  const app = Fastify({ forceCloseConnections: true })
  t.teardown(() => app.close())
  await app.register(mcp, { name: 'budget', version: '1.0.0', ...options })
  app.mcp.tool({ name: 'cheap', inputSchema: Type.Object({}) }, async () => ({ content: [{ type: 'text', text: 'ok' }] }))
  app.mcp.tool({ name: 'expensive', inputSchema: Type.Object({}), rateLimit: { max: 1, timeWindow: 60_000 } }, async () => ({ content: [{ type: 'text', text: 'done' }] }))
  await app.ready()
  return app
}

t.test('rateLimit: the (N+1)th request of a client in the window is 429 with Retry-After; notifications are free', async (t) => {
  const app = await server(t, { rateLimit: { max: 3, timeWindow: 60_000 }, auth: jwtAuth })
  const alice = token('alice', '')
  const call = async (bearer: string, id: number): Promise<Awaited<ReturnType<FastifyInstance['inject']>>> => {
    const body = modern(id, 'tools/call', { name: 'cheap', arguments: {} })
    return await app.inject({ method: 'POST', url: '/mcp', headers: { ...headersFor(body), authorization: `Bearer ${bearer}` }, payload: body })
  }
  const remaining: string[] = []
  for (let id = 1; id <= 3; id++) {
    const res = await call(alice, id)
    t.equal(res.statusCode, 200)
    remaining.push(res.headers['x-ratelimit-remaining'] as string)
    // A notification in between costs nothing.
    const note = { jsonrpc: '2.0', method: 'notifications/message', params: { _meta: modern(0, 'x').params } }
    t.equal((await app.inject({ method: 'POST', url: '/mcp', headers: { ...headersFor(modern(0, 'x')), 'mcp-method': 'notifications/message', authorization: `Bearer ${alice}` }, payload: note })).statusCode, 202)
  }
  t.same(remaining, ['2', '1', '0'])
  const over = await call(alice, 4)
  t.equal(over.statusCode, 429)
  const retryAfter = Number(over.headers['retry-after'])
  t.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter} s: when the window ends`)
  t.equal(over.headers['x-ratelimit-limit'], '3')
  t.equal(over.headers['x-ratelimit-remaining'], '0')
  t.match(over.json(), { jsonrpc: '2.0', id: 4, error: { code: -32006, data: { limit: 3, windowMs: 60_000 } } })
  t.equal((await call(token('bob', ''), 5)).statusCode, 200, 'another identity has its own budget')
})

t.test('legacy SSE: 429 instead of 202', async (t) => {
  const app = await server(t, { rateLimit: { max: 1, timeWindow: 60_000 } })
  const url = await app.listen({ port: 0, host: '127.0.0.1' })
  const stream = await fetch(`${url}/sse`)
  const reader = stream.body?.getReader()
  t.teardown(async () => { await reader?.cancel() })
  const first = new TextDecoder().decode((await reader?.read())?.value)
  const endpoint = /data: (.*)/.exec(first)?.[1] ?? ''
  const post = async (body: unknown): Promise<Response> => await fetch(new URL(endpoint, url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  t.equal((await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })).status, 202)
  t.equal((await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).status, 202, 'a notification is not counted')
  const over = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' })
  t.equal(over.status, 429)
  t.ok(Number(over.headers.get('retry-after')) >= 1)
  t.match(await over.json(), { id: 2, error: { code: -32006 } })
})

t.test('a definition\'s rateLimit: its second call in the window is 429 for the SDK client; other tools go on', async (t) => {
  const app = await server(t, {})
  const url = await app.listen({ port: 0, host: '127.0.0.1' })
  const { client } = await connectStreamable(`${url}/mcp`)
  t.teardown(() => client.close())
  t.match(await client.callTool({ name: 'expensive', arguments: {} }), { content: [{ text: 'done' }] })
  await t.rejects(client.callTool({ name: 'expensive', arguments: {} }), { code: 429, message: /Rate limit exceeded: at most 1 requests per 60000 ms/ })
  t.match(await client.callTool({ name: 'cheap', arguments: {} }), { content: [{ text: 'ok' }] })
})
