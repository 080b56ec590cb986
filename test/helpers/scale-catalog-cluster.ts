// A scale-out deployment of real processes serving the whole test catalog: one redis-server, three
// instances of test/fixtures/scale-catalog-instance.mjs (plain JS against dist/: run `npm run build`
// first) and HAProxy round-robin in front. Each instance reports where a client's cancel, DELETE or
// retry landed (stdout) and where a handler saw its abort (stderr), which the tests read.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import type { Test } from 'tap'
import ts from 'typescript'
import { fixture } from './clients.js'
import { startHaproxy } from './haproxy.js'
import { listening } from './instance-process.js'
import { startRedis } from './redis-server.js'

export interface CatalogInstance {
  readonly id: string
  /** The instance's own address (`http://127.0.0.1:port`), for control requests only. */
  readonly url: string
  /** What it printed after `{"port":N}`: `{ landed: 'cancel' | 'DELETE', ... }`. */
  readonly landed: Array<Record<string, unknown>>
  /** The tags of `wait_for_abort` handlers that saw their abort here. */
  readonly aborted: string[]
  /** POST /control: broadcast, notify a resource update, or just ask (`listens`: open listen streams). */
  control: (body: Record<string, unknown>) => Promise<{ instanceId: string, listens: number }>
}

export interface CatalogCluster {
  readonly instances: CatalogInstance[]
  /** HAProxy's address: what clients are given. */
  readonly url: string
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

/**
 * The environment without tap's process tracking (NODE_OPTIONS `--import=.../processinfo/...`): it
 * doubles an instance's start (~1.5 s more CPU each) and would only measure coverage of dist/, which
 * counts for nothing (coverage is of src/).
 */
function untracked (): NodeJS.ProcessEnv {
  const options = (process.env.NODE_OPTIONS ?? '').split(/\s+/).filter((option) => option !== '' && !option.includes('@tapjs/processinfo'))
  return { ...process.env, NODE_OPTIONS: options.join(' ') }
}

async function startInstance (t: Test, redis: string, id: string, compiled: string): Promise<CatalogInstance> {
  const child = spawn(process.execPath, [fixture('scale-catalog-instance.mjs'), redis, id, compiled], { stdio: ['ignore', 'pipe', 'pipe'], env: untracked() })
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL')
      await once(child, 'exit')
    }
  })
  const landed: Array<Record<string, unknown>> = []
  const aborted: string[] = []
  createInterface({ input: child.stderr }).on('line', (line) => {
    const tag = /^ABORTED (.*)$/.exec(line)?.[1]
    if (tag !== undefined) aborted.push(tag)
    else process.stderr.write(`[${id}] ${line}\n`)
  })
  const port = await listening(child, id, landed)
  const url = `http://127.0.0.1:${port}`
  const control = async (body: Record<string, unknown>): Promise<{ instanceId: string, listens: number }> => {
    const response = await fetch(`${url}/control`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    if (response.status !== 200) throw new Error(`control ${JSON.stringify(body)} on ${id}: ${response.status}`)
    return await response.json() as { instanceId: string, listens: number }
  }
  return { id, url, landed, aborted, control }
}

/** redis-server, instances i0, i1, i2 (started together) and HAProxy round-robin over them. */
export async function startCatalogCluster (t: Test, count = 3): Promise<CatalogCluster> {
  const [redis, compiled] = await Promise.all([startRedis(t), transpileCatalog(t)])
  const instances = await Promise.all(Array.from({ length: count }, async (_, i) => await startInstance(t, redis.url, `i${i}`, compiled)))
  const haproxy = await startHaproxy(t, instances.map((instance) => Number(new URL(instance.url).port)))
  return { instances, url: haproxy.url }
}
