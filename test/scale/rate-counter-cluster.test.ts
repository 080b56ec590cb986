// Rate-limit budgets on a Redis Cluster (issue 20 with issue 24): two instances' counters, given the
// Cluster configuration as `scaleOut.redis`, draw on one budget per key, whatever slot the key is in.
import t from 'tap'
import { redisRateCounter } from '../../src/transports/rate-counters.js'
import { redisClusterTest, startRedisCluster } from '../helpers/redis-cluster.js'

t.test('two counters on one Cluster share each budget, client by client', redisClusterTest(t), async (t) => {
  const rig = await startRedisCluster(t, 3)
  const settings = { redis: { cluster: rig.seeds }, namespace: 'rl-test', redisTimeoutMs: 5000 }
  const a = redisRateCounter(settings)
  const b = redisRateCounter(settings)
  t.teardown(async () => { await Promise.all([a.close(), b.close()]) })
  for (const client of ['alice', 'bob', 'carol', 'dave']) {
    const counts: number[] = []
    for (let i = 0; i < 3; i++) {
      counts.push((await a.hit(client, 5, 60_000)).count)
      counts.push((await b.hit(client, 5, 60_000)).count)
    }
    t.same(counts, [1, 2, 3, 4, 5, 6], `${client}: one count across both instances`)
  }
  const hit = await a.hit('alice', 5, 60_000)
  t.ok(hit.resetMs > 0 && hit.resetMs <= 60_000, 'the window\'s end is known')
})
