// Issue 19, items 1 and 4: a client naming an instance that does not exist (in the id of a reply to
// a server request, in the Last-Event-ID of a resume) must not make the bus write for it. Before,
// each such request created a Redis key `mcp:in:<name>` with no TTL, whole body included, for good.
// Two instances on a real redis-server, raw HTTP on the attacker's own session.
import t from 'tap'
import { redisTest, startRedis } from '../helpers/redis-server.js'
import { openSession, post, redisInteger, redisKeys, sessionHeaders, startInstances } from '../helpers/scale-attack.js'
import { sleep } from '../helpers/wait.js'

t.test('a reply to a server request of an instance that does not exist is dropped: 202, nothing written', redisTest(t), async (t) => {
  const redis = await startRedis(t)
  const [i0] = await startInstances(t, redis, 2)
  if (i0 === undefined) throw new Error('no instance')
  const session = await openSession(i0.url)
  const before = await redisKeys(redis)
  const padding = 'x'.repeat(10_000)
  for (let n = 0; n < 20; n++) {
    const answer = await post(i0.url, { jsonrpc: '2.0', id: `s.phantom${n}.1`, result: { padding } }, sessionHeaders(session))
    t.equal(answer.status, 202, `reply ${n}: accepted and dropped, as for a dead instance`)
  }
  await sleep(300)
  const after = await redisKeys(redis)
  t.same(after.filter((key) => key.includes('phantom')), [], 'no inbox of a made-up instance')
  t.same(after, before, 'Redis holds the same keys as before')
})

t.test('a resume naming an instance that does not exist writes nothing for it', redisTest(t), async (t) => {
  const redis = await startRedis(t)
  const [i0] = await startInstances(t, redis, 2)
  if (i0 === undefined) throw new Error('no instance')
  const session = await openSession(i0.url)
  const before = await redisKeys(redis)
  for (let n = 0; n < 20; n++) {
    const controller = new AbortController()
    const response = await fetch(`${i0.url}/mcp`, {
      headers: { accept: 'text/event-stream', 'last-event-id': `phantom${n}.1_1`, ...sessionHeaders(session) },
      signal: controller.signal
    })
    t.ok(response.status === 200 || response.status === 400, `resume ${n}: answered (${response.status})`)
    controller.abort()
    await response.body?.cancel().catch(() => {})
  }
  await sleep(300)
  const after = await redisKeys(redis)
  t.same(after.filter((key) => key.includes('phantom')), [], 'no inbox of a made-up instance')
  t.same(after, before, 'Redis holds the same keys as before')
  // The other instance's inbox is written only while it lives (its heartbeat keeps a TTL on it).
  for (const key of after.filter((name) => name.startsWith('mcp:in:'))) {
    t.ok(await redisInteger(redis, 'PTTL', key) > 0, `${key} expires`)
  }
})
