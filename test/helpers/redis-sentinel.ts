// A primary with replicas watched by Redis Sentinel, for the failover tests: redis-server
// processes (one primary, `replicas` replicas following it) and `sentinels` redis-sentinel
// processes, each on free loopback ports, each with its own config file (Sentinel rewrites it).
// Children of the test, torn down with it, so a test can SIGKILL the primary and watch the
// Sentinels promote a replica. No persistence: what a replica had not received is lost, as in a
// real failover.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import type { Test } from 'tap'
import { freePort } from './free-port.js'

const SERVER = process.env.REDIS_SERVER ?? 'redis-server'
const SENTINEL = process.env.REDIS_SENTINEL ?? 'redis-sentinel'
/** The primary's name in the Sentinels' configuration. */
export const PRIMARY_NAME = 'mcp-primary'

export function hasRedisSentinel (): boolean {
  return spawnSync(SERVER, ['--version'], { stdio: 'ignore' }).status === 0 && spawnSync(SENTINEL, ['--version'], { stdio: 'ignore' }).status === 0
}

/** `t.test(name, redisSentinelTest(t), fn)`: skipped without the binaries, failed under `CI=true`. */
export function redisSentinelTest (t: Test): { skip: string | false } {
  if (hasRedisSentinel()) return { skip: false }
  const reason = `${SERVER} and ${SENTINEL} are needed for the Sentinel tests (apt-get install redis-server redis-sentinel)`
  if (process.env.CI === 'true') t.fail(reason)
  return { skip: reason }
}

export interface SentinelRig {
  /** What `scaleOut.redis` is given: the Sentinels and the primary's name. */
  readonly config: { sentinels: Array<{ host: string, port: number }>, name: string }
  /** Ports of the servers, the primary first. */
  readonly servers: number[]
  /** The port of the primary the Sentinels name now. */
  primary: () => Promise<number>
  /** SIGKILLs the server on `port` and waits until it is gone. */
  kill: (port: number) => Promise<void>
  /** Sends the server on `port` a signal (SIGSTOP, SIGCONT). */
  signal: (port: number, signal: NodeJS.Signals) => void
  /** Resolves with the new primary's port once the Sentinels name another than `old` (at most `ms`). */
  promotion: (old: number, ms?: number) => Promise<number>
}

export async function startSentinelRig (t: Test, replicas = 2, sentinels = 3): Promise<SentinelRig> {
  const dir = await mkdtemp(join(tmpdir(), 'mcp-sentinel-'))
  const children = new Map<number, ChildProcess>()
  const admins: Redis[] = []
  const stop = async (child: ChildProcess): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return
    child.kill('SIGCONT')
    child.kill('SIGKILL')
    await once(child, 'exit')
  }
  t.teardown(async () => {
    for (const admin of admins) admin.disconnect()
    for (const child of children.values()) await stop(child)
    await rm(dir, { recursive: true, force: true })
  })
  const admin = (port: number): Redis => {
    const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => 50 })
    client.on('error', () => {})
    admins.push(client)
    return client
  }
  const servers: number[] = []
  for (let i = 0; i <= replicas; i++) {
    const port = await freePort()
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning', '--dir', dir]
    if (i > 0) args.push('--replicaof', '127.0.0.1', String(servers[0]))
    children.set(port, spawn(SERVER, args, { stdio: ['ignore', 'ignore', 'inherit'] }))
    servers.push(port)
  }
  for (const port of servers.slice(1)) {
    const replica = admin(port)
    await waitFor(async () => /master_link_status:up/.test(await replica.info('replication')), `replica ${port} in sync`)
  }
  const sentinelPorts: number[] = []
  for (let i = 0; i < sentinels; i++) {
    const port = await freePort()
    const file = join(dir, `sentinel-${port}.conf`)
    await writeFile(file, [
      `port ${port}`, 'bind 127.0.0.1', `dir ${dir}`,
      `sentinel monitor ${PRIMARY_NAME} 127.0.0.1 ${servers[0] ?? 0} 2`,
      // A primary silent for 1 s is down; a failover that stalls is retried after 5 s.
      `sentinel down-after-milliseconds ${PRIMARY_NAME} 1000`,
      `sentinel failover-timeout ${PRIMARY_NAME} 5000`,
      `sentinel parallel-syncs ${PRIMARY_NAME} 1`, ''
    ].join('\n'))
    children.set(port, spawn(SENTINEL, [file], { stdio: ['ignore', 'ignore', 'inherit'] }))
    sentinelPorts.push(port)
  }
  const asked = sentinelPorts.map((port) => admin(port))
  // Each Sentinel must know the replicas and the other Sentinels before a failover can be agreed.
  for (const sentinel of asked) {
    await waitFor(async () => {
      const [known, peers] = await Promise.all([sentinel.call('SENTINEL', 'REPLICAS', PRIMARY_NAME), sentinel.call('SENTINEL', 'SENTINELS', PRIMARY_NAME)]) as [unknown[], unknown[]]
      return known.length === replicas && peers.length === sentinels - 1
    }, 'the Sentinels know the replicas and each other', 30_000)
  }
  const primary = async (): Promise<number> => {
    for (const sentinel of asked) {
      const reply = await sentinel.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', PRIMARY_NAME).catch(() => null) as [string, string] | null
      if (reply !== null) return Number(reply[1])
    }
    throw new Error('no Sentinel answers')
  }
  return {
    config: { sentinels: sentinelPorts.map((port) => ({ host: '127.0.0.1', port })), name: PRIMARY_NAME },
    servers,
    primary,
    kill: async (port) => {
      const child = children.get(port)
      if (child !== undefined) await stop(child)
    },
    signal: (port, signal) => { children.get(port)?.kill(signal) },
    promotion: async (old, ms = 30_000) => {
      let now = old
      await waitFor(async () => (now = await primary()) !== old, 'a replica promoted', ms)
      return now
    }
  }
}

async function waitFor (check: () => Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!await check().catch(() => false)) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
