// Three instances of test/fixtures/scale-outage-instance.mjs (plain JS against dist/: run
// `npm run build` first) as child processes on one real redis-server, behind a real HAProxy doing
// round-robin: the rig of the Redis outage tests. Each instance's log (stderr) is kept, so a test
// can check what it says, and its exit, so a test can tell a crash.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import type { Test } from 'tap'
import { startHaproxy } from './haproxy.js'
import { startRedis, type RedisServer } from './redis-server.js'

const FIXTURE = fileURLToPath(new URL('../fixtures/scale-outage-instance.mjs', import.meta.url))

export interface OutageInstance {
  readonly id: string
  readonly port: number
  readonly url: string
  /** The instance's log lines so far (pino JSON). */
  readonly log: string[]
  /** Whether the process is still running (a crash would end it). */
  running: () => boolean
  /** Sends the process a signal (SIGSTOP, SIGCONT). */
  signal: (signal: NodeJS.Signals) => void
}

export interface OutageCluster {
  readonly redis: RedisServer
  /** HAProxy's address: what the clients are given. */
  readonly url: string
  readonly instances: OutageInstance[]
}

async function startInstance (t: Test, redis: string, id: string): Promise<OutageInstance> {
  const child: ChildProcess = spawn(process.execPath, [FIXTURE, redis, id], { stdio: ['ignore', 'pipe', 'pipe'] })
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL')
      await once(child, 'exit')
    }
  })
  const log: string[] = []
  createInterface({ input: child.stderr as NodeJS.ReadableStream }).on('line', (line) => { log.push(line) })
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })
  for await (const line of lines) {
    const port = (JSON.parse(line) as { port?: number }).port
    if (port !== undefined) {
      return { id, port, url: `http://127.0.0.1:${port}`, log, running: () => child.exitCode === null && child.signalCode === null, signal: (signal) => { child.kill(signal) } }
    }
  }
  throw new Error(`instance ${id} exited before listening: ${log.join('\n').slice(0, 500)}`)
}

/** redis-server (with `password`, so the tests can check it never shows), 3 instances, HAProxy. */
export async function startOutageCluster (t: Test, password: string): Promise<OutageCluster> {
  const redis = await startRedis(t, { password })
  const instances = await Promise.all(['i0', 'i1', 'i2'].map(async (id) => await startInstance(t, redis.url, id)))
  const haproxy = await startHaproxy(t, instances.map((instance) => instance.port))
  // An instance learns of the others from its heartbeat (2 s): until each has beaten once after
  // the last one started, a legacy POST forwarded to a newer one could be refused.
  await new Promise((resolve) => setTimeout(resolve, 2200))
  return { redis, url: haproxy.url, instances }
}
