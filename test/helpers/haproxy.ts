// A real HAProxy in front of the instances of a scale-out test, as a child process on a free
// loopback port: `balance roundrobin` (one client connection's requests go 0, 1, 2, 0, ...: no
// stickiness), `option http-no-delay` (without it every SSE event waits ~200 ms in HAProxy),
// `option abortonclose` (without it a client that closes its connection mid-request, which is how a
// 2026-07-28 client cancels, leaves the request running on the instance: HAProxy takes the close
// for a half-close and keeps waiting for the answer), `option forwardfor` (the client's address in
// X-Forwarded-For, for servers that trust the balancer), 1 h client/server timeouts (event streams
// are long requests).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Test } from 'tap'
import { ExitedAtStart, hasExited, startOnFreePorts } from './free-port.js'
import { sleep } from './wait.js'

const BINARY = process.env.HAPROXY ?? 'haproxy'

/** Whether haproxy can be run here. */
export function hasHaproxy (): boolean {
  return spawnSync(BINARY, ['-v'], { stdio: 'ignore' }).status === 0
}

/** Skip without the binary locally; fail under `CI=true`, where `.ci/run` installs it. */
export function haproxyTest (t: Test): { skip: string | false } {
  if (hasHaproxy()) return { skip: false }
  const reason = `${BINARY} is not installed: the balancer tests need it (apt-get install haproxy)`
  if (process.env.CI === 'true') t.fail(reason)
  return { skip: reason }
}

/** The configuration: round-robin over `backends`, health-checked, streams never cut. */
export function haproxyConfig (port: number, backends: readonly number[]): string {
  return [
    'global',
    '  maxconn 2000',
    'defaults',
    '  mode http',
    '  timeout connect 5s',
    '  timeout client 1h',
    '  timeout server 1h',
    '  option http-no-delay',
    '  option redispatch',
    '  option abortonclose',
    '  option forwardfor',
    'frontend mcp',
    `  bind 127.0.0.1:${port}`,
    '  default_backend instances',
    'backend instances',
    '  balance roundrobin',
    ...backends.map((backend, i) => `  server i${i} 127.0.0.1:${backend} check inter 500`),
    ''
  ].join('\n')
}

export interface Haproxy {
  readonly port: number
  readonly url: string
  stop: () => Promise<void>
}

/**
 * Starts haproxy (`-f cfg -db`: foreground, so the test holds its pid) on a free port (see
 * {@link startOnFreePorts}) and waits until it accepts connections.
 */
export async function startHaproxy (t: Test, backends: readonly number[]): Promise<Haproxy> {
  const dir = await mkdtemp(join(tmpdir(), 'mcp-haproxy-'))
  const cfg = join(dir, 'haproxy.cfg')
  let child: ChildProcess | undefined
  const stop = async (): Promise<void> => {
    if (child !== undefined && !hasExited(child)) {
      child.kill('SIGKILL')
      await once(child, 'exit')
    }
    await rm(dir, { recursive: true, force: true })
  }
  t.teardown(stop)
  return await startOnFreePorts(1, async ([port = 0]) => {
    await writeFile(cfg, haproxyConfig(port, backends))
    const started: ChildProcess = spawn(BINARY, ['-f', cfg, '-db'], { stdio: ['ignore', 'ignore', 'pipe'] })
    child = started
    let stderr = ''
    started.stderr?.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
    for (let i = 0; ; i++) {
      if (hasExited(started)) throw new ExitedAtStart(`haproxy exited at start on ${port}: ${stderr.slice(0, 500)}`)
      if (await accepts(port)) return { port, url: `http://127.0.0.1:${port}`, stop }
      if (i > 200) throw new Error(`haproxy did not listen on ${port}: ${stderr.slice(0, 500)}`)
      await sleep(25)
    }
  })
}

async function accepts (port: number): Promise<boolean> {
  return await new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    socket.once('connect', () => { socket.destroy(); resolve(true) })
    socket.once('error', () => { resolve(false) })
  })
}
