// A Redis Cluster for the scale-out benchmark: 3 primaries (redis-server with cluster-enabled, no
// persistence) on free loopback ports, joined by `redis-cli --cluster create`, and what the runner
// reads from them: CPU time and commands run, summed over the primaries (INFO cpu and INFO
// commandstats over short-lived connections of the runner's own, INFO and CLUSTER left out).
import { execFile, spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { Redis } from 'ioredis'
import { freePort } from './ports.js'

const SERVER = process.env.REDIS_SERVER ?? 'redis-server'
const CLI = process.env.REDIS_CLI ?? 'redis-cli'
const run = promisify(execFile)

/** Why a Redis Cluster cannot be started here, or undefined when it can. */
export function redisClusterMissing () {
  return [SERVER, CLI].every((binary) => spawnSync(binary, ['--version'], { stdio: 'ignore' }).status === 0) ? undefined : `${SERVER} and ${CLI} are needed (apt-get install redis-server)`
}

async function until (check, what) {
  for (let attempt = 0; attempt < 400; attempt++) {
    if (await check().catch(() => false)) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`Redis Cluster: timed out waiting for ${what}`)
}

export async function startRedisCluster (primaries = 3) {
  const dir = await mkdtemp(join(tmpdir(), 'bench-cluster-'))
  const nodes = []
  for (let i = 0; i < primaries; i++) {
    const [port, bus] = [await freePort(), await freePort()]
    const child = spawn(SERVER, ['--port', String(port), '--cluster-port', String(bus), '--bind', '127.0.0.1', '--cluster-enabled', 'yes',
      '--cluster-config-file', join(dir, `nodes-${port}.conf`), '--dir', dir, '--save', '', '--appendonly', 'no', '--loglevel', 'warning'], { stdio: 'ignore' })
    const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => 50 })
    probe.on('error', () => {})
    nodes.push({ port, child, probe, exited: once(child, 'exit') })
  }
  const stop = async () => {
    for (const node of nodes) {
      node.probe.disconnect()
      if (node.child.exitCode === null && node.child.signalCode === null) node.child.kill('SIGKILL')
      await node.exited
    }
    await rm(dir, { recursive: true, force: true })
  }
  try {
    for (const node of nodes) await until(async () => await node.probe.ping() === 'PONG', `node ${node.port}`)
    await run(CLI, ['--cluster', 'create', ...nodes.map((node) => `127.0.0.1:${node.port}`), '--cluster-replicas', '0', '--cluster-yes'])
    for (const node of nodes) await until(async () => /cluster_state:ok/.test(await node.probe.cluster('INFO')), `node ${node.port} in the cluster`)
  } catch (error) {
    await stop()
    throw error
  }
  return {
    /** `scaleOut.redis` for the instances, as JSON. */
    config: JSON.stringify({ cluster: nodes.map((node) => ({ host: '127.0.0.1', port: node.port })) }),
    /** Summed over the primaries: CPU time so far (µs), commands other than INFO and CLUSTER, and per command. */
    async stats () {
      const perCommand = {}
      let cpuMicros = 0
      for (const node of nodes) {
        const [cpu, commands] = await Promise.all([node.probe.info('cpu'), node.probe.info('commandstats')])
        const field = (name) => Number(new RegExp(`^${name}:([0-9.]+)`, 'm').exec(cpu)?.[1] ?? NaN)
        cpuMicros += (field('used_cpu_sys') + field('used_cpu_user')) * 1e6
        for (const [, name, calls] of commands.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) perCommand[name] = (perCommand[name] ?? 0) + Number(calls)
      }
      delete perCommand.info
      delete perCommand.cluster
      return { cpuMicros, commands: Object.values(perCommand).reduce((sum, n) => sum + n, 0), perCommand }
    },
    stop
  }
}
