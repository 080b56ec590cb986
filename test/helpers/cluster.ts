// A scale-out deployment made of real processes, the rig of test/rigs/: one redis-server, N instances
// of an instance fixture (plain JS against dist/, refused when older than src/) and HAProxy
// round-robin in front of them. Everything is a child process of the test, torn down with it, also
// when the test fails. The fixture is a parameter:
// - scale-instance.mjs: a few tools the rigs pace (where, work, later, soak, slow, pump, ...);
// - scale-catalog-instance.mjs: the whole test catalog, transpiled against dist/ here.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import type { Test } from 'tap'
import ts from 'typescript'
import { ensureBuilt } from './built.js'
import { fixture } from './clients.js'
import { startHaproxy } from './haproxy.js'
import { startRedis, type RedisServer, type RedisServerOptions } from './redis-server.js'

export type InstanceFixture = 'scale-instance.mjs' | 'scale-catalog-instance.mjs'

export interface InstanceProcess {
  readonly id: string
  readonly port: number
  /** The instance's own address (`http://127.0.0.1:port`), bypassing the balancer. */
  readonly url: string
  readonly child: ChildProcess
  /** Every JSON line printed after `{"port":N}`, in order (what the instance reports). */
  readonly lines: Array<Record<string, unknown>>
  /** Its stderr, line by line (the pino log, with `log: true`; `ABORTED tag` from the catalog). */
  readonly log: string[]
  /** Whether the process still runs (a crash or a kill ends it). */
  running: () => boolean
  /** Sends the process a signal (SIGSTOP, SIGCONT). */
  signal: (signal: NodeJS.Signals) => void
  /** SIGKILL, then waits until the process is gone. */
  kill: () => Promise<void>
}

/**
 * The environment without tap's process tracking (NODE_OPTIONS `--import=.../processinfo/...`): it
 * doubles an instance's start (~1.5 s more CPU each) and would only measure coverage of dist/, which
 * counts for nothing (coverage is of src/).
 */
function untracked (): NodeJS.ProcessEnv {
  const options = (process.env.NODE_OPTIONS ?? '').split(/\s+/).filter((option) => option !== '' && !option.includes('@tapjs/processinfo'))
  return { ...process.env, NODE_OPTIONS: options.join(' ') }
}

/**
 * Starts `node fixture redis id settings` (settings as JSON), killed at teardown if still running;
 * resolves once it prints `{"port":N}`. Its stderr is kept in `log`; lines that are neither pino
 * JSON nor catalog marks are echoed, tagged with the id, so a crash shows in the test's output.
 */
export async function startInstance (t: Test, name: InstanceFixture, redis: string, id: string, settings: Record<string, unknown> = {}): Promise<InstanceProcess> {
  ensureBuilt()
  const child = spawn(process.execPath, [fixture(name), redis, id, JSON.stringify(settings)], { stdio: ['ignore', 'pipe', 'pipe'], env: untracked() })
  const running = (): boolean => child.exitCode === null && child.signalCode === null
  const kill = async (): Promise<void> => {
    if (!running()) return
    child.kill('SIGKILL')
    await once(child, 'exit')
  }
  t.teardown(kill)
  const log: string[] = []
  createInterface({ input: child.stderr }).on('line', (line) => {
    log.push(line)
    if (!line.startsWith('{') && !line.startsWith('ABORTED ')) process.stderr.write(`[${id}] ${line}\n`)
  })
  const lines: Array<Record<string, unknown>> = []
  const port = await listening(child, id, lines, log)
  return { id, port, url: `http://127.0.0.1:${port}`, child, lines, log, running, signal: (signal) => { child.kill(signal) }, kill }
}

/**
 * Resolves with the port an instance prints as `{"port":N}` on stdout; the JSON lines it prints
 * after that are pushed to `lines` (other output is ignored). Rejects if it exits before.
 */
async function listening (child: ChildProcess, id: string, lines: Array<Record<string, unknown>>, log: string[]): Promise<number> {
  if (child.stdout === null) throw new Error(`instance ${id}: its stdout is not piped`)
  const input = createInterface({ input: child.stdout })
  return await new Promise<number>((resolve, reject) => {
    input.on('line', (line) => {
      let parsed: Record<string, unknown>
      try {
        parsed = JSON.parse(line) as Record<string, unknown>
      } catch {
        return
      }
      if (typeof parsed.port === 'number') resolve(parsed.port)
      else lines.push(parsed)
    })
    input.once('close', () => { reject(new Error(`instance ${id} exited before listening: ${log.join('\n').slice(0, 500)}`)) })
  })
}

export interface ClusterOptions {
  /** Instances, named i0, i1, ... and started together. Default 3. */
  count?: number
  /** The fixture's settings; for scale-instance.mjs: `options` (plugin options) and `log`. */
  settings?: Record<string, unknown>
  /** The redis-server's (a password, so that a test can check it never shows). */
  redis?: RedisServerOptions
}

export interface ProcessCluster {
  readonly redis: RedisServer
  /** i0 first. */
  readonly instances: InstanceProcess[]
  /** HAProxy's address: what clients are given. */
  readonly url: string
}

/** redis-server, `count` instances of `name` and HAProxy round-robin over them. */
export async function startProcessCluster (t: Test, name: InstanceFixture, options: ClusterOptions = {}): Promise<ProcessCluster> {
  ensureBuilt()
  const [redis, catalog] = await Promise.all([
    startRedis(t, options.redis),
    name === 'scale-catalog-instance.mjs' ? transpileCatalog(t) : undefined
  ])
  const settings = catalog === undefined ? options.settings : { ...options.settings, compiled: catalog }
  const instances = await Promise.all(Array.from({ length: options.count ?? 3 }, async (_, i) => await startInstance(t, name, redis.url, `i${i}`, settings)))
  const haproxy = await startHaproxy(t, instances.map((instance) => instance.port))
  return { redis, instances, url: haproxy.url }
}

const DIST = new URL('../../dist/index.js', import.meta.url).href

/**
 * test/fixtures/catalog.ts, sampling.ts and scale-tools.ts transpiled into a temporary directory (as
 * .mjs), importing dist/ instead of src/: the instances serve the very table every transport
 * test drives, and start without a TypeScript loader.
 */
async function transpileCatalog (t: Test): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mcp-catalog-'))
  t.teardown(async () => { await rm(dir, { recursive: true, force: true }) })
  for (const name of ['catalog', 'sampling', 'scale-tools']) {
    const source = await readFile(fixture(`${name}.ts`), 'utf8')
    const { outputText } = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } })
    const output = outputText.replaceAll("from '../../src/index.js'", `from '${DIST}'`)
    const imports = [...output.matchAll(/from '([^']+)'/g)].map((match) => match[1])
    if (imports.some((specifier) => specifier !== DIST)) throw new Error(`${name}.ts imports more than src/index.js (${imports.join()}): teach transpileCatalog about it`)
    await writeFile(join(dir, `${name}.mjs`), output)
  }
  return dir
}

/** The tags of the catalog's `wait_for_abort` handlers that saw their abort on `instance` (`ABORTED tag` on stderr). */
export function abortedTags (instance: InstanceProcess): string[] {
  return instance.log.flatMap((line) => /^ABORTED (.*)$/.exec(line)?.[1] ?? [])
}

/**
 * POST /control on a catalog instance's own port (never given to clients): broadcast a
 * notification, notify a resource update, or just ask; answers with its open listen streams.
 */
export async function control (instance: InstanceProcess, body: Record<string, unknown>): Promise<{ instanceId: string, listens: number }> {
  const response = await fetch(`${instance.url}/control`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  if (response.status !== 200) throw new Error(`control ${JSON.stringify(body)} on ${instance.id}: ${response.status}`)
  return await response.json() as { instanceId: string, listens: number }
}
