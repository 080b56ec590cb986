// A redis-server of the scale-out benchmark: a child process on a free loopback port, without
// persistence, and what the runner reads from it: its own CPU time and how many commands it ran
// (INFO cpu and INFO commandstats, read over a short-lived connection of the runner's own).
import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { connect } from 'node:net'
import { Redis } from 'ioredis'
import { freePort } from './ports.js'

const BINARY = process.env.REDIS_SERVER ?? 'redis-server'

/** Why the scale-out workloads cannot run here, or undefined when they can. */
export function redisMissing () {
  return spawnSync(BINARY, ['--version'], { stdio: 'ignore' }).status === 0 ? undefined : `${BINARY} is not installed (apt-get install redis-server)`
}

/** Resolves once redis-server accepts connections on `port` (it starts in a few ms). */
async function waitForPort (port, child, stderr) {
  for (let attempt = 0; attempt < 250; attempt++) {
    if (child.exitCode !== null) break
    const up = await new Promise((resolve) => {
      const socket = connect({ host: '127.0.0.1', port }, () => { socket.destroy(); resolve(true) })
      socket.on('error', () => resolve(false))
    })
    if (up) return
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  child.kill('SIGKILL')
  throw new Error(`redis-server did not start on port ${port}: ${stderr()}`)
}

export async function startRedis () {
  const port = await freePort()
  const child = spawn(BINARY, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning'], { stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr.setEncoding('utf8')
  child.stderr.on('data', (chunk) => { if (stderr.length < 4000) stderr += chunk })
  const exited = once(child, 'exit')
  const url = `redis://127.0.0.1:${port}`
  await waitForPort(port, child, () => stderr)
  // The runner's own connection: it only ever sends INFO, which `stats()` leaves out of the count.
  const probe = new Redis(url, { maxRetriesPerRequest: 1 })
  await once(probe, 'ready')
  return {
    url,
    /**
     * CPU time of redis-server so far (µs), and the commands it ran other than INFO (the instances
     * never send INFO in steady state; the runner sends nothing else).
     */
    async stats () {
      const [cpu, commands] = await Promise.all([probe.info('cpu'), probe.info('commandstats')])
      const field = (name) => Number(new RegExp(`^${name}:([0-9.]+)`, 'm').exec(cpu)?.[1] ?? NaN)
      const perCommand = {}
      for (const [, name, calls] of commands.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) perCommand[name] = Number(calls)
      delete perCommand.info
      return {
        cpuMicros: (field('used_cpu_sys') + field('used_cpu_user')) * 1e6,
        commands: Object.values(perCommand).reduce((sum, n) => sum + n, 0),
        perCommand
      }
    },
    async stop () {
      probe.disconnect()
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
      await exited
    }
  }
}
