// The two orders the Redis bus restores itself, on a real redis-server: the fan-out of several
// shards handed out in one order (by id, then shard, once every shard is fenced past the id), and a
// gateway's stream-0 messages in log order when their inbox entries come in another one (deliver0
// logs in the session's slot and writes the inbox in another: two commands, which two senders can
// interleave).
import t from 'tap'
import { Redis } from 'ioredis'
import type { DirectMessage, Envelope } from '../../src/scale/ports.js'
import { connectRedis } from '../../src/scale/redis/client.js'
import { fanoutOrder } from '../../src/scale/redis/bus/fanout-order.js'
import { Stream0Order, type EventEntry } from '../../src/scale/redis/bus/stream0-order.js'
import { createScaleEngine, type RedisScaleEngine } from '../../src/scale/redis/engine.js'
import { keysOf } from '../../src/scale/redis/keys.js'
import { resolvePluginOptions } from '../../src/schemas/resolve.js'
import { redisTest, startRedis } from '../helpers/redis-server.js'
import { until } from '../helpers/wait.js'

const quiet = { info: () => {}, warn: () => {}, error: () => {} }

t.test('fan-out shards: one order, by id then shard, each shard fenced before an entry is handed out', redisTest(t), async (t) => {
  const redis = await startRedis(t)
  const admin = new Redis(redis.url)
  t.teardown(() => { admin.disconnect() })
  const port = await connectRedis({ redis: redis.url, name: 'order', connectTimeoutMs: 1000, log: quiet })
  t.teardown(() => port.close())
  const keys = keysOf('fo', 3)
  const streams = [0, 1, 2].map((k) => keys.fanout(k))
  await admin.xadd(streams[2] as string, '5000-0', 'old', '1')
  const handed: Array<{ shard: number, id: string, position: string }> = []
  const order = fanoutOrder(port, streams, (shard, entry, position) => { handed.push({ shard, id: entry[0], position }) }, quiet)
  t.teardown(() => { order.stop() })
  await order.seekTails(port)
  t.equal(order.cursor(), '5000-2', 'the start: the newest tail of any shard, past every shard')
  t.equal(order.readFrom(0), '5000-0', 'every shard is read from there')
  await t.rejects(admin.xadd(streams[0] as string, '4000-0', 'late', '1'), /equal or smaller/, 'no shard takes an id before the start')

  // Shard 1 has an entry; shard 0 gets one with a smaller id, read later (another primary, another clock).
  await admin.xadd(streams[0] as string, '6000-0', 'f', 'x')
  await admin.xadd(streams[1] as string, '7000-0', 'f', 'x')
  order.add(1, [['7000-0', ['f', 'x']]])
  await until(() => handed.length === 2, { timeoutMs: 10_000, what: 'both handed out' })
  t.same(handed, [{ shard: 0, id: '6000-0', position: '6000-0' }, { shard: 1, id: '7000-0', position: '7000-1' }], 'the fence read shard 0\'s earlier entry and handed it out first')
  await t.rejects(admin.xadd(streams[2] as string, '6500-0', 'late', '1'), /equal or smaller/, 'shard 2 was fenced past the entry handed out')
  const next = await admin.xadd(streams[2] as string, '*', 'f', 'x') as string
  t.ok(Number(next.split('-')[0]) >= 7000, 'later entries sort after it')

  // A resume after the first position gets the rest, with the positions the reader gave them.
  const after = await order.after('6000-0', 100)
  t.same(after.map((a) => a.position), ['7000-1'], 'after a position: up to what was handed out, in the same order')
  t.same((await order.after('0', 100)).map((a) => a.position), ['5000-2', '6000-0', '7000-1'], 'from the start of the history (before this reader started too)')
})

t.test('stream 0 at its gateway: messages handed out in log order, the ones still on their way read from the log, none twice', redisTest(t), async (t) => {
  const redis = await startRedis(t)
  const admin = new Redis(redis.url)
  t.teardown(() => { admin.disconnect() })
  const port = await connectRedis({ redis: redis.url, name: 'order', connectTimeoutMs: 1000, log: quiet })
  t.teardown(() => port.close())
  const keys = keysOf('so', 1)
  const ids = []
  for (let i = 1; i <= 4; i++) ids.push(await admin.xadd(keys.log0('s'), '*', 'd', `{"n":${i}}`) as string)
  const [p1, p2, p3, p4] = ids as [string, string, string, string]
  const order = new Stream0Order(port, keys, 'me', quiet)
  const handed: string[] = []
  const deliver = (envelope: Envelope<DirectMessage>): void => { if (envelope.message.type === 'event') handed.push(envelope.message.json) }
  const entry = (position: string, prev: string, n: number): Envelope<EventEntry> =>
    ({ from: 'x', position: '1-0', message: { type: 'event', session: 's', position, prev, json: `{"n":${n}}` } })

  order.event(entry(p1, '0', 1), deliver)
  t.same(handed, ['{"n":1}'], 'not tracked (no claim here): handed out as it comes')
  order.claimed('s', 'me', p1, 'other')
  order.event(entry(p3, p2, 3), deliver)
  order.event(entry(p4, p3, 4), deliver)
  await until(() => handed.length === 4, { timeoutMs: 10_000, what: 'the gap filled' })
  t.same(handed, ['{"n":1}', '{"n":2}', '{"n":3}', '{"n":4}'], 'the message still on its way read from the log, then the rest, in order')
  order.event(entry(p2, p1, 2), deliver)
  t.same(handed.length, 4, 'its own entry, late, is dropped')
  order.claimed('s', 'another', p4, 'me')
  order.event(entry(p4, p3, 4), deliver)
  t.same(handed.length, 5, 'once another instance claimed it: nothing tracked, the transport decides')
})

t.test('a stream-0 message and a message sent right after it, by one instance to one inbox: both arrive', redisTest(t), async (t) => {
  const redis = await startRedis(t)
  const engine = async (instanceId: string): Promise<RedisScaleEngine> => {
    const scaleOut = resolvePluginOptions({ scaleOut: { redis: redis.url, instanceId, namespace: 'seq' } }).scaleOut
    if (scaleOut === undefined) throw new Error('no scaleOut')
    const made = await createScaleEngine({ scaleOut, eventStoreSize: 100, eventStoreBytes: 1 << 20, idleTimeoutMs: 60_000 }, quiet)
    t.teardown(() => made.close())
    return made
  }
  const [x, y] = [await engine('x'), await engine('y')]
  const heard: string[] = []
  y.bus.onDirect(({ message }) => { heard.push(message.type === 'event' ? `event ${message.json}` : message.type) })
  await x.sessions.create({ id: 's', kind: 'streamable', protocolVersion: '2025-11-25', clientCapabilities: {}, subscriptions: [] }, 60_000)
  await y.sessions.claimGateway('s', 'y')
  // deliver0 writes the inbox once its script has answered: the response, sent after, is written first.
  const sent = []
  for (let i = 0; i < 50; i++) {
    sent.push(x.bus.deliver0('s', `{"n":${i}}`))
    sent.push(x.bus.send('y', { type: 'response', session: 's', json: `{"r":${i}}` }))
  }
  await Promise.all(sent)
  await until(() => heard.length >= 100, { timeoutMs: 10_000, what: 'all heard' })
  t.equal(heard.filter((h) => h.startsWith('event')).length, 50, 'every stream-0 message, none taken for a duplicate of the later send')
  t.equal(heard.filter((h) => h === 'response').length, 50)
})
