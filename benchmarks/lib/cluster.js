// A deployment of several instances for the benchmark: N instances of servers/ours-http.js, each
// a child process, on one redis-server (scale-out), or without (`redis: false`: independent
// instances, as behind a sticky balancer). The handle looks like one server to the clients and to
// the measured window (lib/window.js): its CPU is the sum over the instances and redis-server,
// which is what running N instances costs.
import { startServer } from './proc.js'
import { startRedis } from './redis.js'
import { startRedisCluster } from './redis-cluster.js'

/** `redis`: true (one redis-server), 'cluster' (a 3-primary Redis Cluster) or false (no scale-out). */
export async function startCluster ({ instances, script = 'ours-http.js', env = {}, redis: shared = true }) {
  const redis = shared === 'cluster' ? await startRedisCluster(3) : shared ? await startRedis() : undefined
  const target = redis?.config ?? redis?.url
  const servers = []
  try {
    // One at a time: each instance's start reads Redis (run_id, the bus's tail) and beats once.
    for (let i = 0; i < instances; i++) {
      servers.push(await startServer(script, { env: redis === undefined ? env : { ...env, BENCH_SCALE_REDIS: target, BENCH_INSTANCE_ID: `b${i}` } }))
    }
  } catch (error) {
    await Promise.all(servers.map((server) => server.stop()))
    await redis?.stop()
    throw error
  }
  return {
    name: redis === undefined ? `${instances} instances` : shared === 'cluster' ? `${instances} instances + a 3-primary Redis Cluster` : `${instances} instances + redis-server`,
    scaled: redis !== undefined,
    url: servers[0].url,
    urls: servers.map((server) => server.url),
    /** CPU (user + system) of every instance and of redis-server so far, in µs. */
    async usage () {
      const [parts, store] = await Promise.all([Promise.all(servers.map((server) => server.usage())), redis?.stats()])
      const instancesMicros = parts.reduce((sum, part) => sum + part.cpuMicros, 0)
      if (store === undefined) return { cpuMicros: instancesMicros, instancesMicros }
      return { cpuMicros: instancesMicros + store.cpuMicros, instancesMicros, redisMicros: store.cpuMicros, redisCommands: store.commands, perCommand: store.perCommand }
    },
    async windowStart () {},
    async windowEnd () {},
    stderr: () => servers.map((server) => server.stderr()).join(''),
    async stop () {
      await Promise.all(servers.map((server) => server.stop()))
      await redis?.stop()
    }
  }
}
