// Deployments of instance processes on a Redis that is not one server: a primary watched by
// Sentinel, or a Redis Cluster (test/helpers/redis-sentinel.ts, redis-cluster.ts), behind the test
// HAProxy. The instances are the fixture the single-Redis rigs run (scale-instance.mjs, plain JS
// against dist/), given the topology's configuration as JSON instead of a URL.
import { Cluster } from 'ioredis'
import type { Test } from 'tap'
import { startInstance, type InstanceProcess } from './cluster.js'
import { startHaproxy } from './haproxy.js'
import { startRedisCluster, type RedisClusterRig } from './redis-cluster.js'
import { sleep } from './wait.js'

/**
 * Instances on `redis` (a Sentinel or Cluster configuration), their log kept (`instance.log`),
 * behind HAProxy; resolves once each has heard the others' heartbeats.
 */
export async function startLoggedInstances (t: Test, redis: object, ids: readonly string[] = ['i0', 'i1', 'i2']): Promise<{ url: string, instances: InstanceProcess[] }> {
  const instances = await Promise.all(ids.map(async (id) => await startInstance(t, 'scale-instance.mjs', JSON.stringify(redis), id, { log: true })))
  const haproxy = await startHaproxy(t, instances.map((instance) => instance.port))
  // An instance learns of the others from its heartbeat (2 s): wait until each has beaten once.
  await sleep(2200)
  return { url: haproxy.url, instances }
}

export interface ClusterDeployment {
  readonly cluster: RedisClusterRig
  /** i0 first. */
  readonly instances: InstanceProcess[]
  /** HAProxy's address: what clients are given. */
  readonly url: string
  /** A client of the Cluster, for the test's own reads. */
  readonly redis: Cluster
}

/** A 3-primary Redis Cluster, `count` instances of the scale-instance fixture on it, HAProxy round-robin over them. */
export async function startClusterDeployment (t: Test, count = 3): Promise<ClusterDeployment> {
  const cluster = await startRedisCluster(t, 3)
  const config = JSON.stringify({ cluster: cluster.seeds })
  const instances = await Promise.all(Array.from({ length: count }, async (_, i) => await startInstance(t, 'scale-instance.mjs', config, `i${i}`)))
  const haproxy = await startHaproxy(t, instances.map((instance) => instance.port))
  const redis = new Cluster(cluster.seeds, { lazyConnect: true })
  await redis.connect()
  t.teardown(() => { redis.disconnect() })
  return { cluster, instances, url: haproxy.url, redis }
}
