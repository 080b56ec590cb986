// Issue 19, item 3: legacy SSE POSTs forwarded to the instance holding their stream stayed in its
// Redis inbox after they ran (25 x 3 MB: +75 MB for good), the inbox was bounded by entry count
// only, and its entries kept the caller's principal. Now an instance deletes what it has read
// from its inbox, and an inbox holds at most `scaleOut.inboxBytes` unread: past it the POST gets
// 503 with Retry-After, and the refusal is counted in telemetry.
import t from 'tap'
import { redisTest, startRedis } from '../helpers/redis-server.js'
import { KEYS, openLegacy, post, redisInteger, redisString, startInstances } from '../helpers/scale-attack.js'
import { until } from '../helpers/wait.js'
import { installOtel } from '../fixtures/otel.js'

t.test('forwarded legacy POSTs leave nothing in the owner\'s inbox once they ran', redisTest(t), async (t) => {
  const redis = await startRedis(t)
  const [i0, i1] = await startInstances(t, redis, 2)
  if (i0 === undefined || i1 === undefined) throw new Error('no instances')
  // The stream on i0; every POST to i1, which forwards it to i0 through i0's inbox.
  const legacy = await openLegacy(t, i0.url, i1.url)
  const text = 'p'.repeat(100_000)
  for (let n = 1; n <= 25; n++) {
    const answer = await post(i1.url, { jsonrpc: '2.0', id: n, method: 'tools/call', params: { name: 'echo', arguments: { text } } }, {}, legacy.endpoint)
    t.equal(answer.status, 202, `POST ${n} forwarded`)
  }
  await until(() => legacy.messages.filter((m) => typeof m.id === 'number' && m.id > 0).length === 25, { what: 'the 25 calls answered on the stream' })
  t.ok(legacy.messages.every((m) => m.result?.content?.[0]?.text === undefined || m.result.content[0].text === `i0:${text.length}`), 'run by the owner')
  // What was read goes within a heartbeat (200 ms here).
  await until(async () => await redisInteger(redis, 'XLEN', KEYS.inbox('i0', 0)) === 0, { what: 'the inbox emptied', timeoutMs: 5000 })
  t.equal(await redisString(redis, 'GET', KEYS.inboxBytes('i0', 0)), '0', 'its byte count is back to 0')
  const memory = Number(/used_memory:(\d+)/.exec(await redis.command('INFO', 'memory'))?.[1])
  t.ok(memory < 5 * 1024 * 1024, `Redis holds ${memory} bytes after 2.5 MB of POSTs ran`)
})

t.test('an inbox whose owner does not read holds inboxBytes at most; past it the POST gets 503, counted', redisTest(t), async (t) => {
  const otel = installOtel()
  t.teardown(otel.shutdown)
  const redis = await startRedis(t)
  const [, i1] = await startInstances(t, redis, 2, { scaleOut: { inboxBytes: 65_536 } })
  if (i1 === undefined) throw new Error('no instances')
  // An owner that beats (alive for a long while on Redis' clock) and never reads: a stalled instance.
  await redis.command('ZADD', KEYS.live, String(Date.now() + 3_600_000), 'stalled')
  await redis.command('SET', KEYS.inboxBytes('stalled', 0), '0', 'PX', '60000')
  const sid = 'legacy-session-of-a-stalled-owner'
  await redis.command('HSET', KEYS.session(sid), 'r.id', JSON.stringify(sid), 'r.kind', '"sse"', 'r.protocolVersion', '"2024-11-05"',
    'r.clientCapabilities', '{}', 'r.subscriptions', '[]', 'gw', 'stalled')
  const statuses: number[] = []
  let refused
  for (let n = 1; n <= 10; n++) {
    const answer = await post(i1.url, { jsonrpc: '2.0', id: n, method: 'tools/call', params: { name: 'echo', arguments: { text: 'q'.repeat(20_000) } } }, {}, `/messages?sessionId=${sid}`)
    statuses.push(answer.status)
    if (answer.status === 503) refused ??= answer
  }
  t.same(statuses.slice(0, 3), [202, 202, 202], 'the first ones wait in the inbox')
  t.ok(statuses.slice(4).every((status) => status === 503), `then 503 (${statuses.join(' ')})`)
  t.equal(refused?.headers.get('retry-after'), '5', 'with Retry-After')
  const held = Number(await redisString(redis, 'GET', KEYS.inboxBytes('stalled', 0)))
  t.ok(held <= 65_536 + 30_000, `the inbox holds ${held} bytes`)
  t.ok(await redisInteger(redis, 'PTTL', KEYS.inbox('stalled', 0)) > 0, 'and expires unless its owner beats')
  const { metrics } = await otel.read()
  const refusals = metrics.find((m) => m.name === 'fastify_mcp.server.limit.refusals')?.points.find((p) => p.attributes['fastify_mcp.limit'] === 'scaleOut.inboxBytes')
  t.equal(refusals?.value, statuses.filter((status) => status === 503).length, 'each refusal counted')
})
