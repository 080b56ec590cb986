// The Redis implementations of the scale-out ports against a real redis-server: the shared
// contracts, then what only Redis has (keys left behind, atomicity of deliver0 against claims).
import { randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import t, { type Test } from 'tap'
import { createScaleEngine, type RedisScaleEngine } from '../../src/scale/redis/engine.js'
import type { ScaleLogger } from '../../src/scale/ports.js'
import { SCALE_OUT_DEFAULTS } from '../../src/schemas/scale-out.js'
import { busContract, collect, eventBytesContract, eventStoreContract, record, sessionStoreContract, taskStoreContract } from '../helpers/scale-contract.js'
import { redisTest, startRedis, type RedisServer } from '../helpers/redis-server.js'
import { RedisTaskStore } from '../../src/scale/redis/task-store.js'
import { RedisEventStore } from '../../src/scale/redis/event-store.js'
import { connectRedis } from '../../src/scale/redis/client.js'
import { keysOf } from '../../src/scale/redis/keys.js'
import { sleep, until } from '../helpers/wait.js'

const quiet: ScaleLogger = { info: () => {}, warn: () => {}, error: () => {} }

interface EngineOptions {
  namespace?: string
  instanceId?: string
  eventStoreSize?: number
  eventStoreBytes?: number
  idleTimeoutMs?: number
  heartbeatMs?: number
  outboxLimit?: number
  shards?: number
  log?: ScaleLogger
}

export async function engine (t: Test, redis: RedisServer, options: EngineOptions = {}): Promise<RedisScaleEngine> {
  const made = await createScaleEngine({
    scaleOut: {
      ...SCALE_OUT_DEFAULTS,
      redis: redis.url,
      namespace: options.namespace ?? 'mcp',
      instanceId: options.instanceId,
      heartbeatMs: options.heartbeatMs ?? 200,
      outboxLimit: options.outboxLimit ?? SCALE_OUT_DEFAULTS.outboxLimit,
      shards: options.shards
    },
    eventStoreSize: options.eventStoreSize ?? 100,
    eventStoreBytes: options.eventStoreBytes ?? 4 << 20,
    idleTimeoutMs: options.idleTimeoutMs ?? 60_000
  }, options.log ?? quiet)
  t.teardown(() => made.close())
  return made
}

const fresh = (): string => `t${randomBytes(4).toString('hex')}`

t.test('contracts on Redis', redisTest(t), async (t) => {
  const redis = await startRedis(t)
  const port = await connectRedis({ redis: redis.url, name: 'test', connectTimeoutMs: 1000, log: quiet })
  t.teardown(() => port.close())

  t.test('SessionStore', async (t) => {
    sessionStoreContract(t, async () => {
      const namespace = fresh()
      const [a, b] = [await engine(t, redis, { namespace }), await engine(t, redis, { namespace })]
      return [a.sessions, b.sessions]
    })
  })
  t.test('EventStore', async (t) => {
    eventStoreContract(t, async ({ maxEvents, maxBytes }) => {
      const keys = keysOf(fresh())
      const options = { maxEvents, maxBytes, ttlMs: 60_000, timeoutMs: 1000 }
      return [new RedisEventStore(port, keys, options), new RedisEventStore(port, keys, options)]
    })
    eventBytesContract(t, async (bytes) => new RedisEventStore(port, keysOf(fresh()), { maxEvents: 100, maxBytes: 1000, ttlMs: 60_000, timeoutMs: 1000, bytes }))
  })
  t.test('TaskStore', async (t) => {
    taskStoreContract(t, async (now) => {
      const keys = keysOf(fresh())
      return [new RedisTaskStore(port, keys, 1000, { now }), new RedisTaskStore(port, keys, 1000, { now })]
    })
  })
  t.test('Bus', async (t) => {
    busContract(t, async () => {
      const namespace = fresh()
      const [a, b, c] = [await engine(t, redis, { namespace }), await engine(t, redis, { namespace }), await engine(t, redis, { namespace })]
      return { buses: [a.bus, b.bus, c.bus], sessions: a.sessions }
    })
  })
  // The bus split in shards, as on a Cluster (here on one server): each instance writes its
  // fan-out to its own shard, and every instance hands the fan-out out in one order.
  t.test('Bus, in 3 shards', async (t) => {
    busContract(t, async () => {
      const namespace = fresh()
      const [a, b, c] = [await engine(t, redis, { namespace, shards: 3 }), await engine(t, redis, { namespace, shards: 3 }), await engine(t, redis, { namespace, shards: 3 })]
      return { buses: [a.bus, b.bus, c.bus], sessions: a.sessions }
    })
  })
})

t.test('Redis specifics', redisTest(t), async (t) => {
  const redis = await startRedis(t)
  const admin = new Redis(redis.url)
  t.teardown(() => { admin.disconnect() })
  const scan = async (namespace: string): Promise<string[]> => (await admin.keys(`${namespace}:*`)).sort()

  t.test('a deleted session leaves no key; an idle one expires with all its keys', async (t) => {
    const namespace = fresh()
    const [a, b] = [await engine(t, redis, { namespace, instanceId: 'a' }), await engine(t, redis, { namespace, instanceId: 'b', idleTimeoutMs: 300 })]
    for (const [id, owner] of [['del', a], ['idle', b]] as const) {
      await owner.sessions.create(record(id), 300)
      await owner.sessions.claimGateway(id, owner.bus.self)
      await owner.bus.deliver0(id, '{"n":1}')
      await owner.events.append(id, 'a.1', { id: 'a.1_1', data: '{"p":1}' })
      await owner.sessions.touch(id, owner === a ? 60_000 : 300)
    }
    t.same((await scan(namespace)).filter((k) => k.includes('{del}')), [`${namespace}:e:{del}:0`, `${namespace}:e:{del}:b`, `${namespace}:e:{del}:r`, `${namespace}:s:{del}`])
    await a.sessions.delete('del')
    t.same((await scan(namespace)).filter((k) => k.includes('{del}')), [], 'delete removed record and logs')
    await until(async () => (await scan(namespace)).every((k) => !k.includes('{idle}')), { timeoutMs: 10_000, what: 'idle keys expired' })
    const left = (await scan(namespace)).map((k) => k.slice(namespace.length + 1).replace(/:.*/, ''))
    t.same([...new Set(left)].sort(), ['bc', 'in', 'live'].filter((k) => left.includes(k)), `only bus keys remain: ${left.join(', ')}`)
    t.notOk(left.some((k) => k === 's' || k === 'e'), 'no per-session key')
  })

  t.test('deliver0 is atomic against claimGateway: each message goes to the holder at its position, once', async (t) => {
    const namespace = fresh()
    const engines = [await engine(t, redis, { namespace, instanceId: 'x' }), await engine(t, redis, { namespace, instanceId: 'y' }), await engine(t, redis, { namespace, instanceId: 'z' })]
    const [x, y, z] = engines as [RedisScaleEngine, RedisScaleEngine, RedisScaleEngine]
    const received = new Map<string, Array<{ position: string, json: string }>>()
    for (const e of [y, z]) {
      const list: Array<{ position: string, json: string }> = []
      received.set(e.bus.self, list)
      e.bus.onDirect(({ message }) => { if (message.type === 'event') list.push({ position: message.position, json: message.json }) })
    }
    await x.sessions.create(record('race'), 60_000)
    await x.sessions.claimGateway('race', 'y')
    const claims: Array<{ holder: string, tail: string }> = [{ holder: 'y', tail: '0' }]
    const sends: Array<Promise<string | undefined>> = []
    for (let i = 0; i < 600; i++) {
      sends.push(x.bus.deliver0('race', JSON.stringify({ i })))
      if (i % 50 === 25) {
        const holder = claims.length % 2 === 1 ? 'z' : 'y'
        const claim = z.sessions.claimGateway('race', holder)
        sends.push(claim.then((c) => { claims.push({ holder, tail: c?.tail ?? 'missing' }); return undefined }))
      }
    }
    const positions = (await Promise.all(sends)).filter((p): p is string => p !== undefined)
    t.equal(positions.length, 600, 'every message logged')
    await until(() => [...received.values()].reduce((n, l) => n + l.length, 0) >= 600, { timeoutMs: 10_000, what: 'all handed out' })
    await sleep(100)
    const all = [...received.values()].flat()
    t.equal(all.length, 600, 'no message handed out twice')
    t.equal(new Set(all.map((m) => m.json)).size, 600, 'every message handed out')
    const order = (p: string): [number, number] => p.split('-').map(Number) as [number, number]
    const before = (p: string, q: string): boolean => { const [a, b] = order(p); const [c, d] = order(q); return a < c || (a === c && b <= d) }
    const sorted = claims.slice(1).sort((l, r) => (before(l.tail, r.tail) ? -1 : 1))
    let wrong = 0
    for (const [holder, list] of received) {
      for (const m of list) {
        // The holder at position p: the last claim whose tail is before p.
        let expected = 'y'
        for (const c of sorted) if (before(c.tail, m.position) && c.tail !== m.position) expected = c.holder
        if (expected !== holder) wrong++
      }
    }
    t.equal(wrong, 0, 'every message went to the instance holding stream 0 at its position')
  })

  t.test('a call that needs Redis fails with 503 after redisTimeoutMs while Redis is stopped', async (t) => {
    const namespace = fresh()
    const a = await engine(t, redis, { namespace })
    await a.sessions.create(record('slow'), 60_000)
    redis.signal('SIGSTOP')
    try {
      await t.rejects(a.sessions.get('slow'), { code: 'FST_MCP_SCALE_UNAVAILABLE', statusCode: 503 })
    } finally {
      redis.signal('SIGCONT')
    }
    t.ok(await a.sessions.get('slow'), 'served again once Redis answers')
  })

  t.test('commands per operation (INFO commandstats): two script calls for deliver0, one for touch', async (t) => {
    const namespace = fresh()
    const a = await engine(t, redis, { namespace, heartbeatMs: 60_000 })
    await a.sessions.create(record('cost'), 60_000)
    await a.sessions.claimGateway('cost', a.bus.self)
    const stats = async (): Promise<Record<string, number>> => {
      const text = await admin.info('commandstats')
      return Object.fromEntries([...text.matchAll(/cmdstat_(\w+):calls=(\d+)/g)].map((m) => [m[1], Number(m[2])]))
    }
    const delta = async (run: () => Promise<unknown>): Promise<Record<string, number>> => {
      const before = await stats()
      await run()
      const after = await stats()
      const out: Record<string, number> = {}
      for (const [name, calls] of Object.entries(after)) {
        const d = calls - (before[name] ?? 0)
        if (d > 0 && name !== 'info' && name !== 'xread') out[name] = d
      }
      return out
    }
    const deliver = await delta(async () => { for (let i = 0; i < 100; i++) await a.bus.deliver0('cost', '{"x":1}') })
    // Two steps in two slots (the log, then the gateway's inbox within its byte bound): two scripts.
    t.equal((deliver.evalsha ?? 0) + (deliver.eval ?? 0), 200, `deliver0: two EVALSHA each on the wire (inside: ${JSON.stringify(deliver)})`)
    const touch = await delta(async () => { for (let i = 0; i < 100; i++) await a.sessions.touch('cost', 60_000) })
    t.equal((touch.evalsha ?? 0) + (touch.eval ?? 0), 100, `touch: one EVALSHA each on the wire (inside: ${JSON.stringify(touch)})`)
    t.comment(`per 100 deliver0: ${JSON.stringify(deliver)}; per 100 touch: ${JSON.stringify(touch)}`)
  })

  t.test('a client of the application is duplicated and never closed', async (t) => {
    const client = new Redis(redis.url)
    t.teardown(() => { client.disconnect() })
    const made = await createScaleEngine({
      scaleOut: { ...SCALE_OUT_DEFAULTS, redis: client, namespace: fresh(), instanceId: 'dup' }, eventStoreSize: 10, eventStoreBytes: 1 << 20, idleTimeoutMs: 0
    }, quiet)
    t.equal(made.address, `127.0.0.1:${redis.port}`)
    await made.sessions.create(record('forever'), 0)
    t.equal(await made.sessions.touch('forever', 0), true, 'idleTimeoutMs 0: no expiry, touch only checks')
    t.equal(await client.pttl(`${(made.bus as unknown as { keys: { session: (s: string) => string } }).keys.session('forever')}`), -1)
    await made.close()
    await made.close()
    t.equal(client.status, 'ready')
  })

  t.test('handlers that throw are logged and do not stop the bus', async (t) => {
    const errors: string[] = []
    const log: ScaleLogger = { ...quiet, error: (_f, message) => { errors.push(message) } }
    const namespace = fresh()
    const [a, b] = [await engine(t, redis, { namespace }), await engine(t, redis, { namespace, log })]
    b.bus.onControl(() => { throw new Error('boom') })
    const seen = collect(b.bus.onControl.bind(b.bus))
    await a.bus.control({ type: 'end', session: 's', reason: 'r' })
    await a.bus.control({ type: 'end', session: 's2', reason: 'r' })
    await until(() => seen.length === 2, { timeoutMs: 10_000, what: 'both seen' })
    t.same(errors, ['scale-out: a bus handler threw', 'scale-out: a bus handler threw'])
    await admin.xadd(`${namespace}:ctl:{0}`, '*', 'junk', '1')
    await a.bus.control({ type: 'end', session: 's3', reason: 'r' })
    await until(() => seen.length === 3, { timeoutMs: 10_000, what: 'after junk' })
  })
})
