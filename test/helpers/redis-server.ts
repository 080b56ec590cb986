// A real redis-server for the scale-out tests, as a child process of the test on a free loopback
// port: not daemonized, so a test holds its pid and can SIGSTOP, SIGCONT, SIGKILL and restart it.
// No persistence (`--save '' --appendonly no`): a restart comes back empty, the hard case. With
// `snapshot`, a restart loads what the test saved last (`SAVE`): a replica promoted without the
// writes made since, as a Sentinel failover does, on one server.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, rm } from 'node:fs/promises'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Test } from 'tap'
import { ExitedAtStart, hasExited, startOnFreePorts } from './free-port.js'
import { sleep } from './wait.js'

const BINARY = process.env.REDIS_SERVER ?? 'redis-server'

/** Whether redis-server can be run here. */
export function hasRedisServer (): boolean {
  return spawnSync(BINARY, ['--version'], { stdio: 'ignore' }).status === 0
}

/**
 * Options for a test that needs redis-server: `t.test(name, redisTest(t), fn)`. Without the binary
 * the test is skipped locally, and fails under `CI=true`, where it must be installed (`.ci/run`).
 */
export function redisTest (t: Test): { skip: string | false } {
  if (hasRedisServer()) return { skip: false }
  const reason = `${BINARY} is not installed: the scale-out tests need it (apt-get install redis-server)`
  if (process.env.CI === 'true') t.fail(reason)
  return { skip: reason }
}

export interface RedisServer {
  readonly port: number
  /** `redis://[:password@]127.0.0.1:port`. */
  readonly url: string
  readonly pid: number | undefined
  /** Sends a signal to the server (SIGSTOP, SIGCONT, SIGKILL...). */
  signal: (signal: NodeJS.Signals) => void
  /** SIGKILL, then waits until the process is gone. */
  kill: () => Promise<void>
  /** Starts a new server on the same port, after kill(): empty, or with the last `SAVE` (`snapshot`). */
  restart: () => Promise<void>
  /** A raw command over a fresh connection (RESP), for assertions: `command('INFO', 'commandstats')`. */
  command: (...args: string[]) => Promise<string>
  stop: () => Promise<void>
}

export interface RedisServerOptions {
  password?: string
  /** Keep what `SAVE` writes (never saved otherwise), for restart() to load. */
  snapshot?: boolean
}

/** Starts of a server before its failure is the test's: each on a new port. */
/**
 * Starts redis-server on a free port (see {@link startOnFreePorts}) and registers its teardown on
 * `t`. A restart keeps the port: that is its point.
 */
export async function startRedis (t: Test, options: RedisServerOptions = {}): Promise<RedisServer> {
  const base = ['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning']
  if (options.password !== undefined) base.push('--requirepass', options.password)
  if (options.snapshot === true) {
    const dir = await mkdtemp(join(tmpdir(), 'mcp-redis-'))
    t.teardown(async () => { await rm(dir, { recursive: true, force: true }) })
    base.push('--dir', dir, '--dbfilename', 'dump.rdb')
  }
  let port = 0
  let child: ChildProcess | undefined
  const start = async (): Promise<void> => {
    const started = spawn(BINARY, ['--port', String(port), ...base], { stdio: ['ignore', 'ignore', 'inherit'] })
    child = started
    await waitForPong(port, options.password, started)
  }
  const exited = async (): Promise<void> => {
    if (child === undefined || hasExited(child)) return
    await once(child, 'exit')
  }
  const stop = async (): Promise<void> => {
    // A stopped server ignores SIGTERM until continued.
    child?.kill('SIGCONT')
    child?.kill('SIGKILL')
    await exited()
  }
  t.teardown(stop)
  await startOnFreePorts(1, async ([free = 0]) => {
    port = free
    await start()
  })
  return {
    port,
    url: options.password === undefined ? `redis://127.0.0.1:${port}` : `redis://:${encodeURIComponent(options.password)}@127.0.0.1:${port}`,
    get pid () { return child?.pid },
    signal: (signal) => { child?.kill(signal) },
    kill: async () => {
      child?.kill('SIGKILL')
      await exited()
    },
    restart: start,
    command: async (...command) => await rawCommand(port, options.password, command),
    stop
  }
}

async function waitForPong (port: number, password: string | undefined, child: ChildProcess): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (hasExited(child)) throw new ExitedAtStart(`redis-server exited at start on port ${port} (code ${String(child.exitCode)})`)
    const reply = await rawCommand(port, password, ['PING']).catch(() => '')
    if (reply.includes('PONG')) return
    await sleep(25)
  }
  throw new Error(`redis-server did not answer on port ${port}`)
}

/** One command (after AUTH when a password is set), answered as raw RESP text. */
async function rawCommand (port: number, password: string | undefined, command: string[]): Promise<string> {
  const commands = password === undefined ? [command] : [['AUTH', password], command]
  const payload = commands.map((c) => `*${c.length}\r\n${c.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`).join('')
  return await new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port })
    let text = ''
    const timer = setTimeout(() => { socket.destroy(); resolve(text) }, 2000)
    socket.on('data', (chunk) => {
      text += chunk.toString('utf8')
      // Done once every command has its reply: good enough for the single-line and bulk replies used.
      if (complete(text, commands.length)) {
        clearTimeout(timer)
        socket.end()
        resolve(password === undefined ? text : text.slice(text.indexOf('\r\n') + 2))
      }
    })
    socket.on('error', (error) => { clearTimeout(timer); reject(error) })
    socket.write(payload)
  })
}

/** Whether `text` holds `count` whole RESP replies (simple, error, integer, bulk). */
function complete (text: string, count: number): boolean {
  let at = 0
  for (let i = 0; i < count; i++) {
    const end = text.indexOf('\r\n', at)
    if (end === -1) return false
    if (text[at] === '$') {
      const length = Number(text.slice(at + 1, end))
      if (length < 0) { at = end + 2; continue }
      const body = Buffer.from(text.slice(end + 2), 'utf8')
      if (body.length < length + 2) return false
      at = end + 2 + Buffer.from(body.subarray(0, length)).toString('utf8').length + 2
    } else {
      at = end + 2
    }
  }
  return true
}
