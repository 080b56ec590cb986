// What an initialize may declare about its client (capabilities, clientInfo) is bounded in bytes
// (maxInitializeBytes, issue 19 item 10): abandoned initializes with 2 MB capabilities once held
// +247 MB in Redis for 30 s. Raw HTTP as an attacker sends it, the official SDK client as a real
// one does, and with scaleOut a real redis-server whose key count shows what a refusal leaves.
import t from 'tap'
import Fastify from 'fastify'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import mcp from '../../src/index.js'
import { listeningCatalogApp } from '../helpers/serve.js'
import { endpointOf, openRawStream } from '../helpers/sse-raw.js'
import { BOTH, raw } from '../helpers/streamable-raw.js'
import { redisTest, startRedis } from '../helpers/redis-server.js'

const padded = (bytes: number): Record<string, unknown> => ({ protocolVersion: '2025-11-25', capabilities: { experimental: { pad: 'c'.repeat(bytes) } }, clientInfo: { name: 'big', version: '1' } })

t.test('Streamable HTTP: an initialize declaring more than maxInitializeBytes gets -32602 and no session', async (t) => {
  const { app, base } = await listeningCatalogApp(t)
  const answers = []
  for (let i = 0; i < 20; i++) {
    const refused = await raw(`${base}/mcp`, 'POST', BOTH, { jsonrpc: '2.0', id: i, method: 'initialize', params: padded(2_000_000) })
    answers.push({ status: refused.status, session: refused.headers['mcp-session-id'], body: JSON.parse(await refused.text()) })
  }
  t.match(answers[0]?.body, { id: 0, error: { code: -32602, message: /take \d+ bytes of JSON; at most 16384 are accepted \(maxInitializeBytes\)/, data: { limit: 'maxInitializeBytes', max: 16384 } } })
  t.same(answers.map((a) => [a.status, a.session, a.body.error?.data?.limit]), answers.map(() => [200, undefined, 'maxInitializeBytes']), 'each refused, none given a session id')
  t.equal(app.mcp.sessionCount, 0, 'twenty refused initializes hold nothing')
  const info = await raw(`${base}/mcp`, 'POST', BOTH, { jsonrpc: '2.0', id: 'info', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'n'.repeat(20_000), version: '1' } } })
  t.match(JSON.parse(await info.text()), { error: { data: { limit: 'maxInitializeBytes' } } }, 'clientInfo counts too')

  const client = new Client({ name: 'real', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {}, roots: { listChanged: true } } })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)))
  t.teardown(() => client.close())
  t.ok(client.getServerVersion(), 'a real client declares far less')
})

t.test('legacy SSE: the refusal arrives on the stream, the session stays uninitialized', async (t) => {
  const { app, base } = await listeningCatalogApp(t, { maxInitializeBytes: 1024 })
  const stream = await openRawStream(`${base}/sse`)
  t.teardown(() => { stream.destroy() })
  const endpoint = new URL(endpointOf(await stream.next()), base)
  const posted = await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: padded(2000) }) })
  t.equal(posted.status, 202)
  const answer = JSON.parse((await stream.next()).replace(/^event: message\ndata: /, ''))
  t.match(answer, { id: 1, error: { code: -32602, data: { limit: 'maxInitializeBytes', max: 1024 } } })
  const list = await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) })
  t.equal(list.status, 202)
  t.match(JSON.parse((await stream.next()).replace(/^event: message\ndata: /, '')), { id: 2, error: { code: -32600, message: /not initialized/ } })
  t.equal(app.mcp.sessionCount, 1)
})

t.test('scaleOut: a refused initialize writes nothing to Redis', redisTest(t), async (t) => {
  const redis = await startRedis(t)
  const app = Fastify({ forceCloseConnections: true })
  t.teardown(() => app.close())
  await app.register(mcp, { scaleOut: { redis: redis.url, namespace: 'init' } })
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const keys = async (): Promise<number> => Number(/(\d+)/.exec(await redis.command('DBSIZE'))?.[1])
  const memory = async (): Promise<number> => Number(/used_memory:(\d+)/.exec(await redis.command('INFO', 'memory'))?.[1])
  const [keysBefore, memoryBefore] = [await keys(), await memory()]
  const limits = []
  for (let i = 0; i < 20; i++) {
    const refused = await raw(`${base}/mcp`, 'POST', BOTH, { jsonrpc: '2.0', id: i, method: 'initialize', params: padded(2_000_000) })
    limits.push(JSON.parse(await refused.text()).error?.data?.limit)
  }
  t.same(limits, limits.map(() => 'maxInitializeBytes'), 'each refused')
  t.equal(await keys(), keysBefore, 'no session record, no key')
  t.ok(await memory() - memoryBefore < 1_000_000, 'and no memory: 20 x 2 MB were refused before anything was stored')
  const accepted = await raw(`${base}/mcp`, 'POST', BOTH, { jsonrpc: '2.0', id: 'ok', method: 'initialize', params: padded(1000) })
  await accepted.text()
  t.type(accepted.headers['mcp-session-id'], 'string')
  t.ok(await keys() > keysBefore, 'an accepted initialize is recorded (the count above can see a record)')
})
