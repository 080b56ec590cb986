// A scale-out deployment made of real processes, for the balancer tests: one redis-server, N
// instances (test/fixtures/scale-instance.mjs, plain JS against dist/: run `npm run build` first)
// and HAProxy round-robin in front of them. Everything is a child process of the test, torn down
// with it, also when the test fails.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import type { Test } from 'tap'
import { startHaproxy } from './haproxy.js'
import { startRedis, type RedisServer } from './redis-server.js'

const FIXTURE = fileURLToPath(new URL('../fixtures/scale-instance.mjs', import.meta.url))

/** Starts one instance; resolves with its port once it listens. `options`: more plugin options. */
export async function startInstance (t: Test, redis: string, id: string, options: Record<string, unknown> = {}): Promise<number> {
  const child: ChildProcess = spawn(process.execPath, [FIXTURE, redis, id, JSON.stringify(options)], { stdio: ['ignore', 'pipe', 'inherit'] })
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL')
      await once(child, 'exit')
    }
  })
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })
  for await (const line of lines) {
    const port = (JSON.parse(line) as { port?: number }).port
    if (port !== undefined) return port
  }
  throw new Error(`instance ${id} exited before listening`)
}

export interface ProcessCluster {
  readonly redis: RedisServer
  /** The instances' own addresses (`http://127.0.0.1:port`), i0 first. */
  readonly instances: string[]
  /** HAProxy's address: what clients are given. */
  readonly url: string
}

/** redis-server, `count` instances named i0, i1, ... and HAProxy round-robin over them. */
export async function startProcessCluster (t: Test, count = 3, options: Record<string, unknown> = {}): Promise<ProcessCluster> {
  const redis = await startRedis(t)
  const ports = await Promise.all(Array.from({ length: count }, async (_, i) => await startInstance(t, redis.url, `i${i}`, options)))
  const haproxy = await startHaproxy(t, ports)
  return { redis, instances: ports.map((port) => `http://127.0.0.1:${port}`), url: haproxy.url }
}
