// The Redis bus through Redis faults, with a real redis-server the test stops, kills and restarts:
// nothing lost or duplicated across a SIGSTOP/SIGCONT, messages sent while Redis is down are
// delivered once it is back (restarted empty), the read loop recovers, the outbox is bounded, and
// no log line carries the password.
import { randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import t, { type Test } from 'tap'
import { createScaleEngine, type RedisScaleEngine } from '../../src/scale/redis/engine.js'
import type { DirectMessage, ScaleLogger } from '../../src/scale/ports.js'
import type { RedisClientLike } from '../../src/scale/redis/targets.js'
import { SCALE_OUT_DEFAULTS } from '../../src/schemas/scale-out.js'
import { redisTest, startRedis, type RedisServer } from '../helpers/redis-server.js'
import { record } from '../helpers/scale-contract.js'
import { sleep, until } from '../helpers/wait.js'

const PASSWORD = 'fault-pw-9Xq7'

interface Captured extends ScaleLogger {
  lines: Array<{ level: string, message: string, fields: string }>
}

function capture (): Captured {
  const lines: Captured['lines'] = []
  const at = (level: string) => (fields: object, message: string): void => { lines.push({ level, message, fields: JSON.stringify(fields) }) }
  return { lines, info: at('info'), warn: at('warn'), error: at('error') }
}

async function engine (t: Test, redis: RedisServer, namespace: string, instanceId: string, log: ScaleLogger, outboxLimit = 10_000): Promise<RedisScaleEngine> {
  const made = await createScaleEngine({
    scaleOut: { ...SCALE_OUT_DEFAULTS, redis: redis.url, namespace, instanceId, heartbeatMs: 200, outboxLimit },
    eventStoreSize: 100,
    eventStoreBytes: 1 << 20,
    idleTimeoutMs: 60_000
  }, log)
  t.teardown(() => made.close())
  return made
}

/** Numbers received by `to` from the 'forward' messages sent to it, in arrival order. */
function inbox (e: RedisScaleEngine): number[] {
  const got: number[] = []
  e.bus.onDirect(({ message }) => { if (message.type === 'forward') got.push(Number(message.json)) })
  return got
}

const forward = (n: number): DirectMessage => ({ type: 'forward', session: 's', json: String(n) })
const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, i) => from + i)

t.test('SIGSTOP/SIGCONT: no error, nothing lost, nothing duplicated, order kept', redisTest(t), async (t) => {
  const redis = await startRedis(t, { password: PASSWORD })
  const log = capture()
  const ns = `f${randomBytes(3).toString('hex')}`
  const [a, b] = [await engine(t, redis, ns, 'a', log), await engine(t, redis, ns, 'b', log)]
  const got = inbox(b)
  const sends: Array<Promise<void>> = []
  for (const n of range(0, 100)) sends.push(a.bus.send('b', forward(n)))
  redis.signal('SIGSTOP')
  for (const n of range(100, 200)) sends.push(a.bus.send('b', forward(n)))
  await sleep(1500)
  redis.signal('SIGCONT')
  for (const n of range(200, 300)) sends.push(a.bus.send('b', forward(n)))
  const outcomes = await Promise.allSettled(sends)
  t.equal(outcomes.filter((o) => o.status === 'rejected').length, 0, 'no send failed')
  await until(() => got.length >= 300, { timeoutMs: 10_000, what: 'all 300 received' })
  await sleep(200)
  t.same(got, range(0, 300), 'each once, in order')
  t.notMatch(JSON.stringify(log.lines), PASSWORD)
})

t.test('kill -9 and restart (empty): sends made meanwhile are delivered once, the read loop goes on', redisTest(t), async (t) => {
  const redis = await startRedis(t, { password: PASSWORD })
  const log = capture()
  const ns = `k${randomBytes(3).toString('hex')}`
  const [a, b] = [await engine(t, redis, ns, 'a', log), await engine(t, redis, ns, 'b', log)]
  let restarts = 0
  for (const e of [a, b]) e.onRedisRestart(() => { restarts++ })
  const got = inbox(b)
  for (const n of range(0, 50)) await a.bus.send('b', forward(n))
  await until(() => got.length === 50, { timeoutMs: 10_000, what: 'first 50 received' })

  await redis.kill()
  const during = range(50, 100).map(async (n) => await a.bus.send('b', forward(n)))
  const queued0 = a.bus.deliver0('gone', '{}').catch((e: Error & { code?: string }) => e.code ?? 'error')
  await t.rejects(a.sessions.get('any'), { code: 'FST_MCP_SCALE_UNAVAILABLE', statusCode: 503 },
    'a request needing Redis while it is down: 503 after redisTimeoutMs')
  await t.rejects(a.sessions.get('any'), { code: 'FST_MCP_SCALE_UNAVAILABLE', message: new RegExp(`Redis at 127.0.0.1:${redis.port} is unreachable`) },
    'once the connection is known to be down, not even queued for later')
  await sleep(500)
  await redis.restart()
  t.equal(await queued0, undefined, 'deliver0 queued meanwhile runs after the restart (on an empty Redis: no session, dropped)')
  const outcomes = await Promise.allSettled(during)
  t.equal(outcomes.filter((o) => o.status === 'rejected').length, 0, 'the sends made while Redis was away succeed once it is back')
  for (const n of range(100, 150)) await a.bus.send('b', forward(n))
  await until(() => got.length >= 150, { timeoutMs: 10_000, what: 'all 150 received' })
  await sleep(200)
  t.same(got, range(0, 150), 'each once, in order: the outbox was flushed and the cursor stayed valid')
  await until(() => restarts === 2, { timeoutMs: 10_000, what: 'both noticed the new run_id' })
  await until(() => a.bus.alive('b') && b.bus.alive('a'), { timeoutMs: 10_000, what: 'heartbeats re-registered' })

  // The scripts are gone with the old server: ioredis loads them again (EVALSHA -> NOSCRIPT -> EVAL).
  await a.sessions.create(record('after'), 60_000)
  await a.sessions.claimGateway('after', 'b')
  const events: string[] = []
  b.bus.onDirect(({ message }) => { if (message.type === 'event') events.push(message.json) })
  t.type(await a.bus.deliver0('after', '{"ok":1}'), 'string')
  await until(() => events.length === 1, { timeoutMs: 10_000, what: 'deliver0 works after the restart' })

  t.ok(log.lines.some((l) => l.message.includes('Redis restarted empty')), 'the restart is logged')
  t.ok(log.lines.some((l) => l.message.includes('connection lost')), 'the outage is logged')
  t.notMatch(JSON.stringify(log.lines), PASSWORD, 'no log line carries the password')
  t.notMatch(JSON.stringify(log.lines), 'redis://', 'nor the URL')
})

t.test('the outbox is bounded: past outboxLimit a write is refused, counted, logged once', redisTest(t), async (t) => {
  const redis = await startRedis(t)
  const log = capture()
  const ns = `o${randomBytes(3).toString('hex')}`
  const a = await engine(t, redis, ns, 'a', log, 5)
  const b = await engine(t, redis, ns, 'b', log)
  const got = inbox(b)
  redis.signal('SIGSTOP')
  let outcomes: Array<PromiseSettledResult<void>>
  try {
    const sends = range(0, 8).map(async (n) => await a.bus.send('b', forward(n)))
    const refused = Promise.allSettled(sends.slice(5))
    outcomes = await Promise.race([refused, sleep(2000).then(() => [])])
  } finally {
    redis.signal('SIGCONT')
  }
  t.equal(outcomes.length, 3)
  t.ok(outcomes.every((o) => o.status === 'rejected' && (o.reason as { code?: string }).code === 'FST_MCP_SCALE_UNAVAILABLE'), 'the three past the limit are refused at once')
  t.equal(log.lines.filter((l) => l.message.includes('outboxLimit reached')).length, 1, 'logged once')
  await until(() => got.length === 5, { timeoutMs: 10_000, what: 'the five waiting are delivered' })
  t.same(got, range(0, 5))
  await until(() => log.lines.some((l) => l.message.includes('caught up')), { timeoutMs: 10_000, what: 'the catch-up is logged' })
  t.match(log.lines.find((l) => l.message.includes('caught up'))?.fields, '"refused":3')
  await a.bus.send('b', forward(99))
  await until(() => got.length === 6, { timeoutMs: 10_000, what: 'and the bus goes on' })
})

t.test('a closed bus refuses writes', redisTest(t), async (t) => {
  const redis = await startRedis(t)
  const a = await engine(t, redis, 'c', 'a', capture())
  await a.close()
  await t.rejects(a.bus.send('x', forward(1)), { code: 'FST_MCP_SCALE_UNAVAILABLE' })
})

t.test('a write a request waits on is refused unsent while Redis is down, and never delivered after', redisTest(t), async (t) => {
  const redis = await startRedis(t)
  // One log per instance: the wait below must see a's own connections drop, not b's.
  const [logA, logB] = [capture(), capture()]
  const lines = (): Captured['lines'] => [...logA.lines, ...logB.lines]
  const ns = `q${randomBytes(3).toString('hex')}`
  const [a, b] = [await engine(t, redis, ns, 'a', logA), await engine(t, redis, ns, 'b', logB)]
  const got = inbox(b)
  await a.bus.send('b', forward(1), { forRequest: true })
  await until(() => got.length === 1, { timeoutMs: 10_000, what: 'delivered while Redis is up' })
  await redis.kill()
  // Until a's command connection has seen the drop, a write still goes out (and then waits for Redis
  // to be back, which this test brings back only after the refusal): wait for both of a's
  // connections (commands, and the bus reader) to log the loss. Any connection's first line was not
  // enough: under load, b's could come first, and the write then waited for ever.
  await until(() => logA.lines.filter((l) => l.message.includes('connection lost')).length >= 2, { timeoutMs: 10_000, what: 'the loss is noticed by a' })
  await t.rejects(a.bus.send('b', forward(2), { forRequest: true }), { code: 'FST_MCP_SCALE_UNAVAILABLE', statusCode: 503 },
    'refused after redisTimeoutMs: the request is answered 503')
  const queued = a.bus.send('b', forward(3))
  await redis.restart()
  await queued
  await a.bus.send('b', forward(4), { forRequest: true })
  await until(() => got.length >= 3, { timeoutMs: 10_000, what: 'the queued write and the next one arrive' })
  await sleep(300)
  t.same(got, [1, 3, 4], 'the refused one never arrives: it was not handed to Redis')
  t.equal(lines().filter((l) => l.message.includes('what needs it is refused')).length, 1, 'the refusal is logged once')
  await until(() => lines().filter((l) => l.message.includes('connection back')).length >= 4, { timeoutMs: 10_000, what: 'back' })
  t.ok(lines().some((l) => l.message.includes('connection back') && l.fields.includes('"refused":1')), 'and counted when Redis is back')
})

t.test('kill -9 and restart (empty): what Redis acknowledged and a reader had yet to read is written again, once, in order', redisTest(t), async (t) => {
  const redis = await startRedis(t, { password: PASSWORD })
  const log = capture()
  const ns = `u${randomBytes(3).toString('hex')}`
  // b's bus connection is the application's client, duplicated; its XREADs wait at a gate the test holds.
  const gated = gatedBusClient(t, redis)
  const options = { eventStoreSize: 100, eventStoreBytes: 1 << 20, idleTimeoutMs: 60_000 }
  const a = await createScaleEngine({ ...options, scaleOut: { ...SCALE_OUT_DEFAULTS, redis: redis.url, namespace: ns, instanceId: 'a' } }, log)
  t.teardown(() => a.close())
  const b = await createScaleEngine({ ...options, scaleOut: { ...SCALE_OUT_DEFAULTS, redis: gated.client, namespace: ns, instanceId: 'b' } }, log)
  t.teardown(() => b.close())
  const got = inbox(b)
  const control: string[] = []
  b.bus.onControl(({ message }) => { if (message.type === 'end') control.push(message.session) })
  const events: string[] = []
  b.bus.onDirect(({ message }) => { if (message.type === 'event') events.push(message.json) })
  await a.sessions.create(record('held'), 60_000)
  await a.sessions.claimGateway('held', 'b')
  await a.bus.send('b', forward(0))
  await until(() => got.length === 1, { timeoutMs: 10_000, what: 'the first one read' })
  // The reader's next XREAD is held: what a writes now is acknowledged by Redis and read by nobody.
  gated.hold()
  await a.bus.send('b', forward(1))
  await until(() => got.length === 2, { timeoutMs: 10_000, what: 'b read 1, and its next read waits at the gate' })
  await a.bus.send('b', forward(2), { forRequest: true })
  await a.bus.control({ type: 'end', session: 'x', reason: 'test' })
  // A stream-0 message: logged, then put in b's inbox; the inbox entry is what is written again.
  t.type(await a.bus.deliver0('held', '{"s0":1}'), 'string')
  await sleep(100)
  t.same(got, [0, 1], 'b read 1 before its reader was held')
  t.same(events, [], 'and not the stream-0 message')
  await redis.kill()
  await redis.restart()
  gated.release()
  await until(() => got.length >= 3 && control.length >= 1 && events.length >= 1, { timeoutMs: 5000, what: 'what b had not read arrives after the restart' })
  await a.bus.send('b', forward(3))
  await until(() => got.length >= 4, { timeoutMs: 10_000, what: 'and the bus goes on' })
  await sleep(300)
  t.same(got, [0, 1, 2, 3], 'each once, in order')
  t.same(control, ['x'], 'a control message too')
  t.same(events, ['{"s0":1}'], 'and the stream-0 message, once')
  t.ok(log.lines.some((l) => l.message.includes('written again') && l.fields.includes('"messages":5')), 'a wrote again the five it had sent in the last three heartbeats (b dropped the two it had read)')
})

t.test('closing while Redis is down takes no longer than while it is up', redisTest(t), async (t) => {
  const redis = await startRedis(t)
  const e = await createScaleEngine({
    scaleOut: { ...SCALE_OUT_DEFAULTS, redis: redis.url, namespace: 'down', instanceId: 'a', heartbeatMs: 200, redisTimeoutMs: 300 },
    eventStoreSize: 10,
    eventStoreBytes: 1 << 20,
    idleTimeoutMs: 0
  }, capture())
  await redis.kill()
  // Between two reconnection attempts: the reader's XREAD waits in ioredis' queue, which closing
  // the connection then does not reject.
  await sleep(500)
  const started = performance.now()
  const closed = await Promise.race([e.close().then(() => true), sleep(5000).then(() => false)])
  t.ok(closed, 'close() settled')
  t.ok(performance.now() - started < 2000, `within 2 s (${Math.round(performance.now() - started)} ms)`)
})

/** An engine (defaults) whose bus XREADs wait while the test holds them: what Redis acknowledges meanwhile, it has not read. */
async function heldReader (t: Test, redis: RedisServer, namespace: string, instanceId: string, log: ScaleLogger): Promise<{ engine: RedisScaleEngine, hold: () => void, release: () => void }> {
  const gated = gatedBusClient(t, redis)
  const made = await createScaleEngine({ eventStoreSize: 100, eventStoreBytes: 1 << 20, idleTimeoutMs: 60_000, scaleOut: { ...SCALE_OUT_DEFAULTS, redis: gated.client, namespace, instanceId } }, log)
  t.teardown(() => made.close())
  return { engine: made, hold: gated.hold, release: gated.release }
}

/**
 * An application's client for scaleOut.redis (duplicated by the engine) whose bus connections'
 * XREADs wait while the test holds them (`hold` until `release`).
 */
function gatedBusClient (t: Test, redis: RedisServer): { client: RedisClientLike, hold: () => void, release: () => void } {
  let gate: Promise<void> | undefined
  let open = (): void => {}
  const base = new Redis(redis.url, { lazyConnect: true })
  t.teardown(() => { base.disconnect() })
  const client = {
    options: base.options,
    duplicate: (override?: object) => {
      const duplicated = base.duplicate(override)
      if ((override as { connectionName?: string } | undefined)?.connectionName?.endsWith(':bus') === true) {
        const xread = duplicated.xread.bind(duplicated) as (...args: unknown[]) => Promise<unknown>
        Object.assign(duplicated, { xread: async (...args: unknown[]) => { await gate; return await xread(...args) } })
      }
      return duplicated
    }
  }
  return {
    client,
    hold: () => { gate = new Promise((resolve) => { open = resolve }) },
    release: () => { gate = undefined; open() }
  }
}

// A failover promotes a replica that lacks the last writes (asynchronous replication); on one
// server, a restart that loads the last SAVE is the same. A stream-0 message logged and put in the
// gateway's inbox, unread, is written again to the inbox with the position it had, and comes once
// (that the gateway writes it even behind newer messages is GatewayChannel.writeLog's, shown by
// the Sentinel rig). Where the new server kept the original, the copy is dropped.
for (const kept of [false, true]) {
  const what = kept ? 'the log kept it' : 'the log lost it'
  t.test(`failover without the last writes, a stream-0 message the gateway had not read (${what}): it comes once`, redisTest(t), async (t) => {
    const redis = await startRedis(t, { snapshot: true })
    const log = capture()
    const ns = `v${randomBytes(3).toString('hex')}`
    const a = await createScaleEngine({ eventStoreSize: 100, eventStoreBytes: 1 << 20, idleTimeoutMs: 60_000, scaleOut: { ...SCALE_OUT_DEFAULTS, redis: redis.url, namespace: ns, instanceId: 'a' } }, log)
    t.teardown(() => a.close())
    const b = await heldReader(t, redis, ns, 'b', log)
    const got = inbox(b.engine)
    const events: Array<{ position: string, json: string }> = []
    b.engine.bus.onDirect(({ message }) => { if (message.type === 'event') events.push({ position: message.position, json: message.json }) })
    await a.sessions.create(record('held'), 60_000)
    t.ok(await b.engine.sessions.claimGateway('held', 'b'), 'b holds stream 0')
    const first = await a.bus.deliver0('held', '{"s0":1}')
    await until(() => events.length === 1, { timeoutMs: 10_000, what: 'b wrote the first one' })
    b.hold()
    await a.bus.send('b', forward(0))
    await until(() => got.length === 1, { timeoutMs: 10_000, what: 'b read it, and its next read waits' })
    // What the promoted replica has: up to here.
    if (!kept) await redis.command('SAVE')
    const lost = await a.bus.deliver0('held', '{"s0":2}')
    if (kept) await redis.command('SAVE')
    t.type(lost, 'string')
    await redis.kill()
    await redis.restart()
    b.release()
    await until(() => events.length >= 2, { timeoutMs: 10_000, what: 'the second one reaches b after the failover' })
    await sleep(300)
    // Kept: b reads the entry the new server kept, and drops the copy that comes after it.
    t.same(events, [{ position: first, json: '{"s0":1}' }, { position: lost, json: '{"s0":2}' }], 'b got each once, the second at the position it was logged at')
    t.same(await a.bus.log0After('held', first as string), kept ? [{ position: lost, json: '{"s0":2}' }] : [],
      kept ? 'the log holds it once' : 'the log lost it: a stream resuming from before it does not get it (docs/scale-out.md, Known limits)')
    t.ok(log.lines.some((l) => l.message.includes('written again')), 'a wrote it again')
  })
}
