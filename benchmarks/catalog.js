#!/usr/bin/env node
// `npm run bench:catalog`: a large catalog (catalog/catalog.js: 100 tools with nested input and
// output schemas, enums, arrays and `$ref`s, 20 prompts, 50 resources) served by ours, the
// official SDK v1 and the official SDK v2, each as its users write it (servers/catalog-*.js).
// Measures `tools/list` and `tools/call` on both generations (2025-11-25 sessions, 2026-07-28
// stateless requests): server CPU per call, p50/p99 latency, calls/s, every answer checked.
// Also ours with the called tool alone, for "our cost does not grow with the catalog". Servers
// alternate in rotating order, a fresh process per run, medians of the runs; traffic to
// 127.0.0.1 only. Writes its section of benchmarks/RESULTS.md (and RESULTS-catalog.json).
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { startServer, killAll } from './lib/proc.js'
import { rotate, quietGate } from './lib/rotation.js'
import { measureMcpCalls } from './lib/mcp-load.js'
import { machineInfo, distFingerprint } from './lib/report.js'
import { writeSection, loadNote, provenance, commandLine } from './lib/sections.js'
import { CALLED_TOOL, argumentsOf, catalogOf, expectedInAnswer, writeCatalogFile } from './catalog/catalog.js'

const HERE = fileURLToPath(new URL('.', import.meta.url))
const env = process.env
const quick = env.BENCH_QUICK === '1'
const num = (name, full, fast) => env[name] === undefined || env[name] === '' ? (quick ? fast : full) : Number(env[name])
const list = (name, full) => (env[name] === undefined || env[name] === '' ? full : env[name]).split(',').map((s) => s.trim()).filter(Boolean)

const config = {
  runs: num('BENCH_RUNS', 3, 1),
  duration: num('BENCH_DURATION', 5, 2),
  warmup: num('BENCH_WARMUP', 1, 0.5),
  connections: num('BENCH_CONNECTIONS', 32, 32),
  servers: list('BENCH_CATALOG_SERVERS', 'ours,ours-one,sdk-v1,sdk-v2'),
  workloads: list('BENCH_CATALOG_WORKLOADS', 'call-2026,call-2025,list-2026,list-2025'),
  candidate: env.BENCH_CANDIDATE_DIST,
  quietWaitSeconds: num('BENCH_QUIET_WAIT_S', 20, 5),
  quietBudgetSeconds: num('BENCH_QUIET_BUDGET_S', 120, 20)
}
const outFile = env.BENCH_OUT ?? join(HERE, quick ? 'RESULTS-quick.md' : 'RESULTS.md')

/** Who serves what: the script, its catalog, its build, and the generations it speaks. */
const SERVERS = {
  ours: { label: 'ours, 100 tools', script: 'catalog-ours.js', size: 'large', generations: ['2026', '2025'] },
  candidate: { label: 'ours (candidate), 100 tools', script: 'catalog-ours.js', size: 'large', generations: ['2026', '2025'], env: { BENCH_OURS_DIST: config.candidate === undefined ? '' : new URL(config.candidate, `file://${process.cwd()}/`).href } },
  'ours-one': { label: 'ours, the called tool alone', script: 'catalog-ours.js', size: 'one', generations: ['2026', '2025'], calls: true },
  'sdk-v1': { label: 'SDK v1 (@modelcontextprotocol/sdk)', script: 'catalog-sdk-v1.js', size: 'large', generations: ['2025'] },
  'sdk-v2': { label: 'SDK v2 (@modelcontextprotocol/server)', script: 'catalog-sdk-v2.js', size: 'large', generations: ['2026', '2025'] }
}
if (config.candidate !== undefined && !config.servers.includes('candidate')) config.servers.splice(1, 0, 'candidate')

const large = catalogOf('large')
const catalogFiles = new Map()
/** The catalog as JSON, written once per size: servers start without generating it. */
const catalogFile = (size) => {
  if (!catalogFiles.has(size)) catalogFiles.set(size, writeCatalogFile(size, join(HERE, '.tmp')))
  return catalogFiles.get(size)
}
const called = large.tools.find((t) => t.name === CALLED_TOOL)
const lastTool = large.tools.at(-1).name
const WORKLOADS = {
  call: {
    title: `tools/call of \`${CALLED_TOOL}\` (nested arguments: an order of three line items, validated; structured output validated against its schema)`,
    method: 'tools/call',
    params: { name: CALLED_TOOL, arguments: argumentsOf(called) },
    isAnswer: (status, body) => status === 200 && body.includes('"result"') && body.includes(expectedInAnswer(called)) && !body.includes('"isError":true')
  },
  list: {
    title: `tools/list of the ${large.tools.length}-tool catalog (one page: every tool, its input and output schema)`,
    method: 'tools/list',
    params: {},
    // Every tool in one page: the last one listed, and no cursor value (output schemas have a `nextCursor` property).
    isAnswer: (status, body) => status === 200 && body.includes('"tools"') && body.includes(`"name":"${lastTool}"`) && !/"nextCursor":\s*"/.test(body)
  }
}

/** One measured run of `workload` on `generation` against a running server. */
async function measure (server, { workload, generation }) {
  const { method, params, isAnswer } = WORKLOADS[workload]
  return await measureMcpCalls(server, { generation, method, params, isAnswer, connections: config.connections, duration: config.duration, warmup: config.warmup, counted: true })
}

const describe = (v) => `${v.callsPerSec.toFixed(0)} calls/s, server ${v.cpuMicrosPerCall.toFixed(1)} us CPU/call, p50 ${v.latency.p50} ms, p99 ${v.latency.p99} ms${v.errors ? `, errors ${v.errors} (first: ${v.sample || 'a socket error or timeout'})` : ''}, other load ${v.otherLoad.toFixed(2)} cores`

async function main () {
  const startedAt = new Date()
  const t0 = performance.now()
  const dist = distFingerprint()
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => { killAll(); process.exit(130) })
  process.on('exit', killAll)
  const log = (line) => process.stdout.write(`${line}\n`)
  const quiet = quietGate({ waitSeconds: config.quietWaitSeconds, budgetSeconds: config.quietBudgetSeconds })
  log(`catalog benchmark: ${config.workloads.join(', ')} | servers ${config.servers.join(', ')} | ${config.runs} run(s), ${config.duration} s each, ${config.connections} connections`)
  const results = {}
  for (const key of config.workloads) {
    const [workload, generation] = key.split('-')
    if (WORKLOADS[workload] === undefined || !['2025', '2026'].includes(generation)) throw new Error(`unknown workload ${key} (call-2026, call-2025, list-2026, list-2025)`)
    const entries = config.servers
      .filter((name) => SERVERS[name] !== undefined && SERVERS[name].generations.includes(generation) && (workload === 'call' || SERVERS[name].calls !== true))
      .map((name) => ({
        name,
        describe,
        start: () => startServer(SERVERS[name].script, { env: { BENCH_CATALOG: SERVERS[name].size, BENCH_CATALOG_FILE: catalogFile(SERVERS[name].size), ...SERVERS[name].env } }),
        measure: (server) => measure(server, { workload, generation })
      }))
    log(`\n== ${key}: ${WORKLOADS[workload].title}`)
    results[key] = await rotate(entries, { runs: config.runs, quiet, log })
  }
  const elapsedSec = (performance.now() - t0) / 1000
  const markdown = report(results, { machine: machineInfo(), dist, startedAt, elapsedSec, command: commandLine('catalog.js') })
  writeSection(outFile, 'catalog', markdown)
  writeFileSync(outFile.replace(/\.md$/, '-catalog.json'), JSON.stringify({ config, startedAt, elapsedSec, results }, null, 2))
  log(`\n${markdown}\n\nWrote the catalog section of ${outFile}.`)
  killAll()
  process.exit(0)
}

const f = (v, digits = 1) => v === undefined || Number.isNaN(v) ? 'n/a' : Number(v).toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
const x = (a, b) => a === undefined || b === undefined || b === 0 ? 'n/a' : `${f(a / b, 2)}x`

function report (results, context) {
  const md = ['## Large catalog (issue 25)', '']
  const note = loadNote(Object.assign({}, ...Object.values(results).map((r) => r.median)))
  if (note !== undefined) md.push(note, '')
  md.push(provenance(context), '')
  md.push(`Catalog: ${large.tools.length} tools (10 domains x 10 operations; nested objects, enums, arrays, shared \`$defs\`), ${large.prompts.length} prompts, ${large.resources.length} resources, the same on every server (benchmarks/catalog/). ${config.connections} keep-alive connections, ${config.warmup} s warm-up, then a measured number of calls sized from the warm-up rate to last about ${config.duration} s (every call sent is answered inside the CPU window, so slow servers are not charged for calls cut off by a clock), ${config.runs} run(s) per server, servers alternating in rotating order, a fresh process per run; figures are medians. Server CPU per call is the figure to compare (user + system CPU of the server process over the window / calls answered); latencies are autocannon's, at saturation.`, '')
  for (const workload of ['call', 'list']) {
    const keys = config.workloads.filter((k) => k.startsWith(`${workload}-`))
    if (keys.length === 0) continue
    md.push(`### ${WORKLOADS[workload].title}`, '')
    md.push('| server | generation | server CPU µs/call | per-run CPU µs/call | vs ours | p50 ms | p99 ms | calls/s | answers checked / errors | other processes, cores |', '|---|---|---:|---|---:|---:|---:|---:|---:|---:|')
    for (const key of keys) {
      const entry = results[key]
      const generation = key.endsWith('2026') ? '2026-07-28' : '2025-11-25'
      const ours = entry.median.ours?.cpuMicrosPerCall
      for (const name of config.servers) {
        if (entry.runs[name] === undefined) continue
        const v = entry.median[name]
        if (v === undefined) {
          md.push(`| ${SERVERS[name].label} | ${generation} | not available: ${String(entry.unavailable[name] ?? (entry.errors[name] ?? []).join('; ')).replace(/[|\n]/g, ' ').slice(0, 200)} ||||||||`)
          continue
        }
        md.push(`| ${SERVERS[name].label} | ${generation} | **${f(v.cpuMicrosPerCall)}** | ${entry.runs[name].map((r) => f(r.cpuMicrosPerCall)).join(', ')} | ${x(v.cpuMicrosPerCall, ours)} | ${f(v.latency.p50, 0)} | ${f(v.latency.p99, 0)} | ${f(v.callsPerSec, 0)} | ${f(v.calls, 0)} / ${f(v.errors, 0)} | ${f(v.otherLoad, 2)} |`)
      }
    }
    md.push('')
  }
  const flat = config.workloads.filter((k) => k.startsWith('call-')).map((key) => {
    const m = results[key].median
    const r = m.ours !== undefined && m['ours-one'] !== undefined ? m.ours.cpuMicrosPerCall / m['ours-one'].cpuMicrosPerCall : undefined
    return `${key.endsWith('2026') ? '2026-07-28' : '2025-11-25'}: ${r === undefined ? 'not measured' : `${f(m.ours.cpuMicrosPerCall)} vs ${f(m['ours-one'].cpuMicrosPerCall)} µs = ${f(r, 2)}x (${r <= 1.2 ? 'met' : '**not met**'})`}`
  })
  if (flat.length > 0) md.push(`Ours flat in catalog size (\`tools/call\` with 100 tools within 1.2x of 1 tool): ${flat.join('; ')}.`, '')
  md.push('How each server serves the catalog: **ours** `server.tool()` with plain JSON Schemas (`$defs`/`$ref` as written), one MCPServer answering both generations on /mcp; **SDK v1** `registerTool` with zod raw shapes, one McpServer per session as its `jsonResponseStreamableHttp.js` example (2025-11-25 only); **SDK v2** a server factory with `z.object` schemas behind `createMcpHandler` + `toNodeHandler` and its localhost Host/Origin guards: a fresh McpServer per request on both generations (2025-era requests through its default stateless legacy fallback, answered as SSE). The zod schemas are built once at start-up and reused by every McpServer, in the SDKs\' favour (apps that build them inside the factory pay that per request too).')
  return md.join('\n')
}

await main()
