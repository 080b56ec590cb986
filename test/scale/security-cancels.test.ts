// Issue 19, item 2: cancels carried request ids of any length. A `notifications/cancelled` naming a
// 3 MB request id went to the control stream, which every instance reads, and every instance kept
// it as an early cancel, for good (+60 MB in Redis and +77 MB of heap per instance for 20 of them).
// Now: a request id longer than any this server accepts is refused (requests, responses) or
// ignored (cancels); early cancels are bounded per session and overall, in count and characters;
// a control message is bounded in bytes, and the control stream is trimmed by age.
import t from 'tap'
import { MAX_REQUEST_ID_LENGTH } from '../../src/jsonrpc/messages.js'
import { MAX_CONTROL_BYTES } from '../../src/scale/redis/bus/bus.js'
import { createScaleEngine } from '../../src/scale/redis/engine.js'
import { SCALE_OUT_DEFAULTS } from '../../src/schemas/scale-out.js'
import { EarlyCancels } from '../../src/transports/scale-out/early-cancels.js'
import { redisTest, startRedis } from '../helpers/redis-server.js'
import { KEYS, openSession, post, redisInteger, sessionHeaders, startInstances } from '../helpers/scale-attack.js'
import { sleep, until } from '../helpers/wait.js'

const quiet = { info: () => {}, warn: () => {}, error: () => {} }
const cancel = (requestId: unknown, reason = 'stop'): Record<string, unknown> => ({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason } })

t.test('a cancel naming a request id longer than any accepted is ignored: nothing reaches the control stream', redisTest(t), async (t) => {
  const redis = await startRedis(t)
  const [i0] = await startInstances(t, redis, 2)
  if (i0 === undefined) throw new Error('no instance')
  const session = await openSession(i0.url)
  const before = await redisInteger(redis, 'EXISTS', KEYS.control(0)) === 1 ? await redisInteger(redis, 'XLEN', KEYS.control(0)) : 0
  for (let n = 0; n < 10; n++) {
    const answer = await post(i0.url, cancel(`${n}:${'x'.repeat(100_000)}`), sessionHeaders(session))
    t.equal(answer.status, 202, `cancel ${n}: accepted (a notification is never answered) and ignored`)
  }
  await sleep(200)
  const after = await redisInteger(redis, 'EXISTS', KEYS.control(0)) === 1 ? await redisInteger(redis, 'XLEN', KEYS.control(0)) : 0
  t.equal(after, before, 'no control message written')
  const memory = Number(/used_memory:(\d+)/.exec(await redis.command('INFO', 'memory'))?.[1])
  t.ok(memory < 10 * 1024 * 1024, `Redis holds ${memory} bytes, not the 1 MB of ids sent`)

  // A request or a response whose id is that long is not a message this server takes.
  const request = await post(i0.url, { jsonrpc: '2.0', id: 'r'.repeat(MAX_REQUEST_ID_LENGTH + 1), method: 'ping' }, sessionHeaders(session))
  t.equal(request.status, 400, 'a request with a longer id: 400')
  t.match(JSON.parse(request.text), { id: null, error: { code: -32600, message: /at most 256 characters/ } }, 'its id is not echoed')
  const response = await post(i0.url, { jsonrpc: '2.0', id: `s.i1.${'9'.repeat(MAX_REQUEST_ID_LENGTH)}`, result: {} }, sessionHeaders(session))
  t.equal(response.status, 400, 'a response with a longer id: 400')
  const fits = await post(i0.url, { jsonrpc: '2.0', id: 'r'.repeat(MAX_REQUEST_ID_LENGTH), method: 'ping' }, sessionHeaders(session))
  t.equal(fits.status, 200, `an id of ${MAX_REQUEST_ID_LENGTH} characters is fine`)
})

t.test('the control stream holds cancels for a few heartbeats, then nothing', redisTest(t), async (t) => {
  const redis = await startRedis(t)
  // heartbeatMs 500: entries older than ten beats (5 s) go at a beat.
  const [i0] = await startInstances(t, redis, 2, { scaleOut: { heartbeatMs: 500 } })
  if (i0 === undefined) throw new Error('no instance')
  const session = await openSession(i0.url)
  for (let n = 0; n < 50; n++) {
    const answer = await post(i0.url, cancel(`never-sent-${n}`, 'r'.repeat(256)), sessionHeaders(session))
    if (answer.status !== 202) t.fail(`cancel ${n}: ${answer.status}`)
  }
  t.ok(await redisInteger(redis, 'XLEN', KEYS.control(0)) >= 50, 'each went to every instance')
  await until(async () => await redisInteger(redis, 'XLEN', KEYS.control(0)) === 0, { what: 'the control stream trimmed', timeoutMs: 20_000 })
})

t.test('a control message is bounded in bytes: a larger one is refused before Redis', redisTest(t), async (t) => {
  const redis = await startRedis(t)
  const engine = await createScaleEngine({
    scaleOut: { ...SCALE_OUT_DEFAULTS, redis: redis.url, instanceId: 'a', heartbeatMs: 200 }, eventStoreSize: 10, eventStoreBytes: 1 << 20, idleTimeoutMs: 0
  }, quiet)
  t.teardown(() => engine.close())
  const refusals: string[] = []
  engine.onLimitRefusal((limit) => { refusals.push(limit) })
  await t.rejects(engine.bus.control({ type: 'cancel', session: 's', requestId: 'x'.repeat(MAX_CONTROL_BYTES), reason: 'r' }), { code: 'FST_MCP_INVALID_REQUEST' })
  t.same(refusals, ['controlMessageBytes'], 'counted for telemetry')
  t.equal(await redisInteger(redis, 'EXISTS', KEYS.control(0)), 0, 'nothing written')
  await engine.bus.control({ type: 'cancel', session: 's', requestId: 'x'.repeat(MAX_REQUEST_ID_LENGTH), reason: 'r'.repeat(256) })
  t.equal(await redisInteger(redis, 'XLEN', KEYS.control(0)), 1, 'the largest cancel a client can cause fits')
})

t.test('early cancels: at most 16 per session, 1000 and 256 Ki characters in all', async (t) => {
  const early = new EarlyCancels()
  for (let n = 0; n < 100; n++) early.remember('one-session', n, 'stop')
  t.equal(early.size.count, 16, 'one session keeps 16')
  for (let s = 0; s < 2000; s++) early.remember(`session-${s}`, 1, 'stop')
  t.equal(early.size.count, 1000, 'all sessions together keep 1000, the oldest dropped first')
  const fresh = new EarlyCancels()
  for (let s = 0; s < 1000; s++) fresh.remember(`session-${s}`, 'i'.repeat(MAX_REQUEST_ID_LENGTH), 'r'.repeat(256))
  t.ok(fresh.size.chars <= 256 * 1024, `${fresh.size.chars} characters kept for 1000 of the largest cancels`)
  t.ok(fresh.size.count < 1000, 'fewer cancels when each is large')
})
