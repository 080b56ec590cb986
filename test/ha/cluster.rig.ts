// Issue 24, must-show 2: scale-out on a Redis Cluster of 3 primaries built by the test with
// `redis-cli --cluster create` (test/helpers/redis-cluster.ts). The routing suite that runs on
// memory and on one Redis runs here unchanged (3 instances in this process, each with its own
// Cluster connections); then where things land: every key of a session in one slot (CLUSTER
// KEYSLOT), sessions on more than one primary, and the bus's traffic under a broadcast load from
// every instance spread over the primaries (INFO commandstats, within 2x of each other).
// The placement cluster has a replica per primary. Run by `npm run test:cluster` (not by `npm test`:
// it starts clusters).
import t from 'tap'
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { createScaleEngine } from '../../src/scale/redis/engine.js'
import { keysOf } from '../../src/scale/redis/keys.js'
import { resolvePluginOptions } from '../../src/schemas/resolve.js'
import { redisClusterTest, startRedisCluster, type RedisClusterRig } from '../helpers/redis-cluster.js'
import { until } from '../helpers/wait.js'
import { clusterStreamable, startCluster, type EngineRig } from '../helpers/scale-cluster.js'
import { routingSuite } from '../helpers/scale-routing-suite.js'
import { registerPlacementTools } from '../fixtures/scale-tools.js'
import { randomBytes } from 'node:crypto'

const quiet = { info: () => {}, warn: () => {}, error: () => {} }

/** Engines on the Cluster, under a namespace of their own (one cluster serves every test). */
function clusterRig (cluster: RedisClusterRig, namespace = `t${randomBytes(4).toString('hex')}`): EngineRig {
  return {
    name: 'cluster',
    engine: async (instanceId, options) => {
      const scaleOut = resolvePluginOptions({ name: 'x', version: '1', scaleOut: { redis: { cluster: cluster.seeds }, instanceId, namespace } }).scaleOut
      if (scaleOut === undefined) throw new Error('scaleOut did not resolve')
      return await createScaleEngine({ ...options, scaleOut }, quiet)
    },
    close: async () => {}
  }
}

t.test('the routing suite on a 3-primary Redis Cluster', redisClusterTest(t), async (t) => {
  const cluster = await startRedisCluster(t, 3)
  routingSuite(t, async () => clusterRig(cluster))
})

t.test('placement: a session\'s keys in one slot, sessions over the primaries, the bus spread over them', redisClusterTest(t), async (t) => {
  // 3 primaries and a replica of each: only the primaries take commands.
  const cluster = await startRedisCluster(t, 3, 1)
  const namespace = `p${randomBytes(4).toString('hex')}`
  const instances = await startCluster(t, clusterRig(cluster, namespace), (app, i) => { registerPlacementTools(app.mcp, `i${i}`) })
  const clients = []
  for (let i = 0; i < 12; i++) clients.push(await clusterStreamable(t, instances))
  const logs = clients.map(() => [] as unknown[])
  clients.forEach(({ client }, i) => { client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => { logs[i]?.push(n.params.data) }) })
  // Calls on every instance, and a GET stream each (the SDK opens one): records, logs and claims.
  for (const { client } of clients) for (let i = 0; i < 3; i++) await client.callTool({ name: 'closer', arguments: {} })
  await new Promise((resolve) => setTimeout(resolve, 200))

  const keys = keysOf(namespace, 3)
  const admin = cluster.nodes[0]?.admin
  if (admin === undefined) throw new Error('no node')
  const primaryOf = new Map<string, number>()
  for (const { transport } of clients) {
    const sid = transport.sessionId ?? ''
    const slots = await Promise.all(keys.ofSession(sid).map(async (key) => await admin.cluster('KEYSLOT', key) as number))
    t.equal(new Set(slots).size, 1, `session ${sid.slice(0, 8)}: its 4 keys in one slot (${String(slots[0])})`)
    const node = await cluster.nodeOf(slots[0] as number)
    t.equal(await node.admin.exists(keys.session(sid), keys.requestLog(sid)), 2, 'its record and request log are on the primary serving that slot')
    t.equal(await node.admin.hget(keys.session(sid), 'gw') !== null, true, 'its stream 0 is claimed')
    primaryOf.set(sid, node.port)
  }
  const spread = new Set(primaryOf.values())
  t.ok(spread.size >= 2, `12 sessions on ${spread.size} primaries`)

  const shards = await Promise.all([0, 1, 2].map(async (k) => (await cluster.nodeOf(await admin.cluster('KEYSLOT', keys.fanout(k)) as number)).port))
  t.equal(new Set(shards).size, 3, `the 3 bus shards on 3 primaries (${shards.join(', ')})`)

  // A broadcast load from every instance: the bus's commands per primary within 2x of each other.
  for (const { node } of await cluster.primaries()) await node.admin.config('RESETSTAT')
  const PER_INSTANCE = 200
  for (let n = 0; n < PER_INSTANCE; n++) {
    instances.apps.forEach((app, i) => { app.mcp.broadcast({ method: 'notifications/message', params: { level: 'info', data: `b${i}.${n}` } }) })
    if (n % 20 === 19) await new Promise((resolve) => setTimeout(resolve, 10))
  }
  await until(() => logs.every((l) => l.length >= PER_INSTANCE * 3), { timeoutMs: 60_000, what: 'every client heard every broadcast' })
  const counts = [...(await cluster.commandsPerPrimary()).values()]
  const [low, high] = [Math.min(...counts), Math.max(...counts)]
  t.ok(high <= 2 * low, `commands per primary within 2x: ${counts.join(', ')}`)
  t.same(logs.map((l) => l.length), logs.map(() => PER_INSTANCE * 3), 'each broadcast once')
  const order = JSON.stringify(logs[0])
  t.ok(logs.every((l) => JSON.stringify(l) === order), 'in one order for every client')
})
