// A real Redis Cluster for the scale-out tests: redis-server processes with `cluster-enabled`, on
// free loopback ports (each with its cluster bus on a second free port, `cluster-port`), joined by
// `redis-cli --cluster create` as a real deployment is. Children of the test, torn down with it.
// No persistence: the tests are about placement and slot moves, not restarts.
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { Redis } from 'ioredis'
import type { Test } from 'tap'
import { ExitedAtStart, hasExited, startOnFreePorts } from './free-port.js'

const SERVER = process.env.REDIS_SERVER ?? 'redis-server'
const CLI = process.env.REDIS_CLI ?? 'redis-cli'
const run = promisify(execFile)

/** Whether redis-server and redis-cli can be run here. */
export function hasRedisCluster (): boolean {
  return spawnSync(SERVER, ['--version'], { stdio: 'ignore' }).status === 0 && spawnSync(CLI, ['--version'], { stdio: 'ignore' }).status === 0
}

/** `t.test(name, redisClusterTest(t), fn)`: skipped without the binaries, failed under `CI=true`. */
export function redisClusterTest (t: Test): { skip: string | false } {
  if (hasRedisCluster()) return { skip: false }
  const reason = `${SERVER} and ${CLI} are needed for the Cluster tests (apt-get install redis-server redis-tools)`
  if (process.env.CI === 'true') t.fail(reason)
  return { skip: reason }
}

export interface ClusterNode {
  readonly port: number
  /** An ioredis connection to this node only (no redirections followed): for INFO, CLUSTER ... */
  readonly admin: Redis
}

export interface RedisClusterRig {
  /** The seeds a client is given: every primary. */
  readonly seeds: Array<{ host: string, port: number }>
  readonly nodes: ClusterNode[]
  /** The primaries, by node, with the slot ranges each serves now. */
  primaries: () => Promise<Array<{ node: ClusterNode, id: string, slots: Array<[number, number]> }>>
  /** The node serving `slot` now. */
  nodeOf: (slot: number) => Promise<ClusterNode>
  /** `redis-cli --cluster reshard`: moves `slots` slots from one primary to another, as an operator does. */
  reshard: (from: string, to: string, slots: number) => Promise<string>
  /** `INFO commandstats` of each primary: calls per command, summed over commands. */
  commandsPerPrimary: () => Promise<Map<number, number>>
}

/** Starts `primaries` primaries (and `replicas` replicas of each) and makes them one cluster. */
export async function startRedisCluster (t: Test, primaries = 3, replicas = 0): Promise<RedisClusterRig> {
  const dir = await mkdtemp(join(tmpdir(), 'mcp-cluster-'))
  const children: ChildProcess[] = []
  const nodes: ClusterNode[] = []
  t.teardown(async () => {
    for (const node of nodes) node.admin.disconnect()
    for (const child of children) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL')
        await once(child, 'exit')
      }
    }
    await rm(dir, { recursive: true, force: true })
  })
  const count = primaries * (1 + replicas)
  for (let i = 0; i < count; i++) nodes.push(await startNode(dir, children))
  await run(CLI, ['--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`), '--cluster-replicas', String(replicas), '--cluster-yes'])
  for (const node of nodes) await waitFor(async () => /cluster_state:ok/.test(await node.admin.cluster('INFO') as string), `node ${node.port} joined`)
  // Every node must agree on the slots before clients start (redis-cli waits for the config to propagate, not for state ok everywhere).
  await waitFor(async () => (await Promise.all(nodes.map(async (n) => await n.admin.cluster('SLOTS') as unknown[]))).every((s) => s.length === primaries), 'every node knows every primary')

  const rig: RedisClusterRig = {
    seeds: nodes.slice(0, primaries).map((n) => ({ host: '127.0.0.1', port: n.port })),
    nodes,
    primaries: async () => {
      const slots = await (nodes[0] as ClusterNode).admin.cluster('SLOTS') as unknown as Array<[number, number, [string, number, string]]>
      const byPort = new Map<number, { node: ClusterNode, id: string, slots: Array<[number, number]> }>()
      for (const [low, high, [, port, id]] of slots) {
        const node = nodes.find((n) => n.port === port) as ClusterNode
        const entry = byPort.get(port) ?? { node, id, slots: [] }
        entry.slots.push([low, high])
        byPort.set(port, entry)
      }
      return [...byPort.values()]
    },
    nodeOf: async (slot) => {
      for (const primary of await rig.primaries()) if (primary.slots.some(([low, high]) => slot >= low && slot <= high)) return primary.node
      throw new Error(`no node serves slot ${slot}`)
    },
    reshard: async (from, to, slots) => {
      const seed = `127.0.0.1:${(nodes[0] as ClusterNode).port}`
      const { stdout } = await run(CLI, ['--cluster', 'reshard', seed, '--cluster-from', from, '--cluster-to', to, '--cluster-slots', String(slots), '--cluster-yes', '--cluster-pipeline', '10'], { maxBuffer: 64 << 20 })
      return stdout
    },
    commandsPerPrimary: async () => {
      const out = new Map<number, number>()
      for (const { node } of await rig.primaries()) {
        const text = await node.admin.info('commandstats')
        let sum = 0
        for (const [, name, calls] of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
          // The rig's own probes (INFO, CLUSTER, PING) are not the deployment's traffic.
          if (!['info', 'cluster', 'ping', 'config|resetstat', 'config'].includes(name as string)) sum += Number(calls)
        }
        out.set(node.port, sum)
      }
      return out
    }
  }
  return rig
}

/** One cluster node on two free ports (see {@link startOnFreePorts}), answering PING. */
async function startNode (dir: string, children: ChildProcess[]): Promise<ClusterNode> {
  return await startOnFreePorts(2, async (ports) => {
    const [port, bus] = ports as [number, number]
    const child = spawn(SERVER, [
      '--port', String(port), '--cluster-port', String(bus), '--bind', '127.0.0.1', '--cluster-enabled', 'yes',
      '--cluster-config-file', join(dir, `nodes-${port}.conf`), '--cluster-node-timeout', '2000', '--dir', dir,
      '--save', '', '--appendonly', 'no', '--loglevel', 'warning'
    ], { stdio: ['ignore', 'ignore', 'inherit'] })
    children.push(child)
    const admin = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 3, retryStrategy: (n) => Math.min(n * 20, 200) })
    admin.on('error', () => {})
    try {
      await waitFor(async () => {
        if (hasExited(child)) throw new ExitedAtStart(`redis-server exited at start on ports ${port} and ${bus}`)
        return (await admin.ping().catch(() => '')) === 'PONG'
      }, `redis-server on ${port} answers`)
    } catch (error) {
      admin.disconnect()
      throw error
    }
    return { port, admin }
  })
}

async function waitFor (check: () => Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms
  // A check's failure is a "not yet", except a child that exited: that one is final.
  while (!await check().catch((error: unknown) => { if (error instanceof ExitedAtStart) throw error; return false })) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
