// Deployments of instance processes on a Redis that is not one server: a primary watched by
// Sentinel, or a Redis Cluster (test/helpers/redis-sentinel.ts, redis-cluster.ts), behind the test
// HAProxy. The instances are the fixtures the single-Redis rigs run (plain JS against dist/: run
// `npm run build` first), given the topology's configuration as JSON instead of a URL.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { Cluster } from 'ioredis'
import type { Test } from 'tap'
import { startHaproxy } from './haproxy.js'
import { startRedisCluster, type RedisClusterRig } from './redis-cluster.js'
import { startInstance } from './scale-processes.js'

const OUTAGE_FIXTURE = fileURLToPath(new URL('../fixtures/scale-outage-instance.mjs', import.meta.url))

export interface LoggedInstance {
  readonly id: string
  readonly url: string
  /** The instance's log lines so far (pino JSON, stderr). */
  readonly log: string[]
  running: () => boolean
}

/**
 * Instances of the outage fixture (the tools the outage load calls) on `redis` (a configuration,
 * passed as JSON), behind HAProxy; resolves once each has heard the others' heartbeats.
 */
export async function startOutageInstances (t: Test, redis: object, ids: readonly string[] = ['i0', 'i1', 'i2']): Promise<{ url: string, instances: LoggedInstance[] }> {
  const instances = await Promise.all(ids.map(async (id) => await startLogged(t, JSON.stringify(redis), id)))
  const haproxy = await startHaproxy(t, instances.map((instance) => Number(new URL(instance.url).port)))
  // An instance learns of the others from its heartbeat (2 s): wait until each has beaten once.
  await new Promise((resolve) => setTimeout(resolve, 2200))
  return { url: haproxy.url, instances }
}

async function startLogged (t: Test, redis: string, id: string): Promise<LoggedInstance> {
  const child: ChildProcess = spawn(process.execPath, [OUTAGE_FIXTURE, redis, id], { stdio: ['ignore', 'pipe', 'pipe'] })
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL')
      await once(child, 'exit')
    }
  })
  const log: string[] = []
  createInterface({ input: child.stderr as NodeJS.ReadableStream }).on('line', (line) => { log.push(line) })
  for await (const line of createInterface({ input: child.stdout as NodeJS.ReadableStream })) {
    const port = (JSON.parse(line) as { port?: number }).port
    if (port !== undefined) return { id, url: `http://127.0.0.1:${port}`, log, running: () => child.exitCode === null && child.signalCode === null }
  }
  throw new Error(`instance ${id} exited before listening: ${log.join('\n').slice(0, 500)}`)
}

export interface ClusterDeployment {
  readonly cluster: RedisClusterRig
  /** The instances' own addresses, i0 first. */
  readonly instances: string[]
  /** HAProxy's address: what clients are given. */
  readonly url: string
  /** A client of the Cluster, for the test's own reads. */
  readonly redis: Cluster
}

/** A 3-primary Redis Cluster, `count` instances of the scale-instance fixture on it, HAProxy round-robin over them. */
export async function startClusterDeployment (t: Test, count = 3, options: Record<string, unknown> = {}): Promise<ClusterDeployment> {
  const cluster = await startRedisCluster(t, 3)
  const config = JSON.stringify({ cluster: cluster.seeds })
  const ports = await Promise.all(Array.from({ length: count }, async (_, i) => await startInstance(t, config, `i${i}`, options)))
  const haproxy = await startHaproxy(t, ports)
  const redis = new Cluster(cluster.seeds, { lazyConnect: true })
  await redis.connect()
  t.teardown(() => { redis.disconnect() })
  return { cluster, instances: ports.map((port) => `http://127.0.0.1:${port}`), url: haproxy.url, redis }
}
