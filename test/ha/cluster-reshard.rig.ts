// Issue 24, must-show 3: slots migrated during calls. A 3-primary Redis Cluster, 3 instances
// (child processes, `npm run build` first) given the Cluster configuration, behind the test
// HAProxy; official SDK clients (Streamable HTTP and legacy SSE) calling tools in a loop with a
// progress and a log on each call's stream or a log on the session's standalone stream, and a
// broadcaster (test/helpers/outage-load.ts). Meanwhile `redis-cli --cluster reshard` moves a range
// of slots holding a bus shard (its inboxes, control and fan-out streams) and sessions' keys to
// another primary: clients see MOVED and ASK only through ioredis, which follows them. Run by
// `npm run test:cluster` (not by `npm test`).
import t from 'tap'
import { keysOf } from '../../src/scale/redis/keys.js'
import { slotOf } from '../../src/scale/redis/slots.js'
import { startLoggedInstances } from '../helpers/ha-deployment.js'
import { haproxyTest } from '../helpers/haproxy.js'
import { startLoad } from '../helpers/outage-load.js'
import { redisClusterTest, startRedisCluster } from '../helpers/redis-cluster.js'
import { sleep, within } from '../helpers/wait.js'

const options = { ...redisClusterTest(t), ...(haproxyTest(t).skip !== false ? haproxyTest(t) : {}) }

t.test('a resharding under load: no call lost or refused, no crash, every message once', options, async (t) => {
  const cluster = await startRedisCluster(t, 3)
  const { url, instances } = await startLoggedInstances(t, { cluster: cluster.seeds })
  const load = await startLoad(t, url, 3)
  await Promise.all(load.clients.map(async (client) => { for (let i = 0; i < 10; i++) await client.step() }))
  t.same(load.failures, [], 'warm-up without failures')

  // The slots from the start of the range of the primary holding bus shard 0 up to past that
  // shard's slot: the shard's streams move, and the sessions' keys in those slots with them.
  const shardSlot = slotOf(keysOf('mcp', 3).fanout(0))
  const primaries = await cluster.primaries()
  const source = primaries.find((p) => p.slots.some(([low, high]) => shardSlot >= low && shardSlot <= high))
  const target = primaries.find((p) => p !== source)
  if (source === undefined || target === undefined) throw new Error('no primaries')
  const low = source.slots.find(([l, h]) => shardSlot >= l && shardSlot <= h)?.[0] ?? 0
  const count = shardSlot - low + 200

  load.start()
  await sleep(1000)
  const before = load.clients.reduce((sum, client) => sum + client.calls, 0)
  const output = await cluster.reshard(source.id, target.id, count)
  t.match(output, /Moving slot/, `redis-cli moved ${count} slots from ${source.node.port} to ${target.node.port}`)
  t.equal((await cluster.nodeOf(shardSlot)).port, target.node.port, `bus shard 0 (slot ${shardSlot}) is now on the other primary`)
  const during = load.clients.reduce((sum, client) => sum + client.calls, 0) - before
  await sleep(1500)
  await load.stop()

  t.ok(during > 0, `${during} calls answered during the resharding`)
  t.ok(instances.every((instance) => instance.running()), 'no instance crashed')
  t.same(load.failures, [], 'no call failed: none refused, none lost')
  await within(() => load.clients.every((client) => client.account().missing.length === 0), { timeoutMs: 15_000 })
  await sleep(300)
  for (const client of load.clients) {
    const { missing, extra } = client.account()
    t.same({ missing: missing.slice(0, 5), extra: extra.slice(0, 5) }, { missing: [], extra: [] }, `${client.name}: ${client.expected.length} messages, none lost, none twice`)
  }
})
