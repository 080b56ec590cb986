// Issue 19, must-show 2: what Redis holds after 1,000 hostile requests of each kind in items 1-4,
// read from Redis itself (`DBSIZE`, `INFO memory` used_memory), stays within a stated bound while
// they arrive, and comes back to the baseline once the clients leave. Two instances built with the
// public API on one real redis-server; raw HTTP as an attacker sends it.
import t from 'tap'
import { MAX_REQUEST_ID_LENGTH } from '../../src/jsonrpc/messages.js'
import { redisTest, startRedis } from '../helpers/redis-server.js'
import { openLegacy, openSession, post, redisUsage, sessionHeaders, settleTo, startInstances } from '../helpers/scale-attack.js'

const REQUESTS = 1000
/** Each instance's inbox bound here (scaleOut.inboxBytes; 64 MiB by default). */
const INBOX_BYTES = 1024 * 1024
/**
 * What 1,000 hostile requests of one kind may add to Redis while they arrive: no key, and 4 MiB,
 * the two inboxes full (with a stream's overhead per entry) and the control stream's last ten
 * heartbeats of the largest cancels a client can send.
 */
const BOUND = { keys: 0, memory: 4 * 1024 * 1024 }
/** Back to the baseline once the clients left: what Redis' allocator keeps after freeing is noise. */
const SLACK = 512 * 1024

/** Runs `one(n)` for n in 0..count-1, `width` at a time. */
async function flood (count: number, one: (n: number) => Promise<void>, width = 8): Promise<void> {
  let next = 0
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < count) await one(next++)
  }))
}

t.test('1,000 hostile requests of each kind (items 1-4): Redis stays within its bound, and back to baseline after', redisTest(t), async (t) => {
  const redis = await startRedis(t)
  const [i0, i1] = await startInstances(t, redis, 2, { sessionInitTimeoutMs: 1000, scaleOut: { inboxBytes: INBOX_BYTES } })
  if (i0 === undefined || i1 === undefined) throw new Error('no instances')
  // The keys every deployment has once used (the live set, each instance's inbox and its byte
  // count, the control stream): one harmless request of each kind makes them, then leaves.
  const warm = await openSession(i0.url)
  await post(i0.url, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }, sessionHeaders(warm))
  const warmLegacy = await openLegacy(t, i0.url, i1.url)
  await post(i1.url, { jsonrpc: '2.0', id: 1, method: 'ping' }, {}, warmLegacy.endpoint)
  warmLegacy.close()
  await fetch(`${i0.url}/mcp`, { method: 'DELETE', headers: sessionHeaders(warm) })
  const baseline = await settleTo(redis, { keys: 0, memory: 0 }, 3000)
  t.comment(`baseline: ${baseline.keys} keys, ${baseline.memory} bytes`)

  const session = await openSession(i0.url)
  const legacy = await openLegacy(t, i0.url, i1.url)
  const opened = await redisUsage(redis)
  const ceiling = { keys: opened.keys + BOUND.keys, memory: opened.memory + BOUND.memory }
  const measured: Record<string, { keys: number, memory: number }> = {}
  const kinds: Array<[string, (n: number) => Promise<void>]> = [
    ['item 1: replies to server requests of made-up instances, 10 KB each', async (n) => {
      await post(i0.url, { jsonrpc: '2.0', id: `s.phantom${n}.1`, result: { padding: 'x'.repeat(10_000) } }, sessionHeaders(session))
    }],
    ['item 2: cancels naming ids longer than any accepted, 16 KB each', async (n) => {
      await post(i0.url, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: `${n}${'x'.repeat(16_000)}`, reason: 'r'.repeat(256) } }, sessionHeaders(session))
    }],
    ['item 2: cancels of the largest accepted size, for requests never sent', async (n) => {
      const id = `${n}:`.padEnd(MAX_REQUEST_ID_LENGTH, 'i')
      await post(i0.url, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'r'.repeat(256) } }, sessionHeaders(session))
    }],
    ['item 3: legacy POSTs forwarded to the stream\'s instance, 10 KB each', async (n) => {
      await post(i1.url, { jsonrpc: '2.0', id: n + 10, method: 'tools/call', params: { name: 'echo', arguments: { text: 'p'.repeat(10_000) } } }, {}, legacy.endpoint)
    }],
    ['item 4: resumes naming made-up instances', async (n) => {
      const controller = new AbortController()
      const response = await fetch(`${i0.url}/mcp`, { headers: { accept: 'text/event-stream', 'last-event-id': `phantom${n}.1_1`, ...sessionHeaders(session) }, signal: controller.signal })
      controller.abort()
      await response.body?.cancel().catch(() => {})
    }]
  ]
  for (const [kind, one] of kinds) {
    let peak = await redisUsage(redis)
    const sampler = setInterval(() => {
      redisUsage(redis).then((usage) => { peak = { keys: Math.max(peak.keys, usage.keys), memory: Math.max(peak.memory, usage.memory) } }, () => {})
    }, 50)
    try {
      await flood(REQUESTS, one)
    } finally {
      clearInterval(sampler)
    }
    const after = await redisUsage(redis)
    peak = { keys: Math.max(peak.keys, after.keys), memory: Math.max(peak.memory, after.memory) }
    measured[kind] = peak
    t.ok(peak.keys <= ceiling.keys, `${kind}: at most ${ceiling.keys} keys (peak ${peak.keys})`)
    t.ok(peak.memory <= ceiling.memory, `${kind}: at most ${ceiling.memory} bytes (peak ${peak.memory}, +${peak.memory - opened.memory})`)
  }
  t.comment(`opened: ${opened.keys} keys, ${opened.memory} bytes; peaks: ${JSON.stringify(measured)}`)

  // The clients leave: the stream closes, the session is deleted.
  legacy.close()
  await fetch(`${i0.url}/mcp`, { method: 'DELETE', headers: sessionHeaders(session) })
  const settled = await settleTo(redis, { keys: baseline.keys, memory: baseline.memory + SLACK }, 15_000)
  t.comment(`after the clients left: ${settled.keys} keys, ${settled.memory} bytes`)
  t.ok(settled.keys <= baseline.keys, `back to ${baseline.keys} keys (${settled.keys})`)
  t.ok(settled.memory <= baseline.memory + SLACK, `back to the baseline's memory within ${SLACK} bytes (${settled.memory - baseline.memory})`)
})
