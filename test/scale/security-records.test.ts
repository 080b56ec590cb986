// Issue 19, item 10 (the Redis half of abandoned initialize requests): an `initialize` carrying
// 2 MB of capabilities was written to Redis whole, and held there for sessionInitTimeoutMs even
// when its client never came back (+247 MB for 30 s). A session record holds at most 64 KiB
// besides its subscriptions now: a larger one is refused (400, readable by the client), counted
// in telemetry, and nothing is written; so what abandoned initializes hold in Redis is at most
// 64 KiB times maxSessionsPerClient per client and times maxSessions overall. (`maxInitializeBytes`,
// 16 KiB by default, refuses such an initialize before any store; this bound holds where an
// application raised it.)
import t from 'tap'
import { MAX_RECORD_BYTES } from '../../src/scale/redis/session-store.js'
import { installOtel } from '../fixtures/otel.js'
import { redisTest, startRedis } from '../helpers/redis-server.js'
import { post, redisKeys, redisUsage, startInstances } from '../helpers/scale-attack.js'

const initialize = (capabilities: Record<string, unknown>): Record<string, unknown> => ({
  jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'attacker', version: '1' } }
})

t.test('an initialize larger than a session record may be is refused, counted, and writes nothing to Redis', redisTest(t), async (t) => {
  const otel = installOtel()
  t.teardown(otel.shutdown)
  const redis = await startRedis(t)
  const [i0] = await startInstances(t, redis, 2, { maxInitializeBytes: 4 * 1024 * 1024 })
  if (i0 === undefined) throw new Error('no instance')
  const before = await redisKeys(redis)
  const memory = (await redisUsage(redis)).memory
  const huge = { experimental: { padding: { text: 'c'.repeat(2 * 1024 * 1024) } } }
  for (let n = 0; n < 5; n++) {
    const answer = await post(i0.url, initialize(huge))
    t.equal(answer.status, 400, `initialize ${n}: 400`)
    t.equal(answer.headers.get('mcp-session-id'), null, 'no session')
    t.match(answer.text, new RegExp(`more than the ${MAX_RECORD_BYTES}`), 'the client reads why')
  }
  t.same(await redisKeys(redis), before, 'no key written')
  const grown = (await redisUsage(redis)).memory - memory
  t.ok(grown < 1024 * 1024, `Redis grew ${grown} bytes for 10 MB of capabilities`)
  const { metrics } = await otel.read()
  const refusals = metrics.find((m) => m.name === 'fastify_mcp.server.limit.refusals')?.points.find((p) => p.attributes['fastify_mcp.limit'] === 'sessionRecordBytes')
  t.equal(refusals?.value, 5, 'each refusal counted')

  const fits = await post(i0.url, initialize({ experimental: { padding: { text: 'c'.repeat(MAX_RECORD_BYTES / 2) } } }))
  t.equal(fits.status, 200, 'a record within the bound is fine')
})
