#!/usr/bin/env node
// `npm run bench:hello`: the hello-world comparison in the format of the published MCP server
// comparisons (sustained load from 50 concurrent clients over Streamable HTTP, one small tool:
// requests per second, average/p50/p99 latency, server memory), with ours, the official SDK v1,
// the official SDK v2 and mcp-framework measured in the same run, on both generations where a
// server speaks them, beside the hand-written baselines. Server CPU per call is reported too: it
// is the figure that does not depend on who the scheduler favoured. Servers alternate in
// rotating order, a fresh process per run, medians of the runs. Writes its section of
// benchmarks/RESULTS.md (and RESULTS-hello.json).
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { startServer, killAll } from './lib/proc.js'
import { freePort } from './lib/ports.js'
import { rotate, quietGate } from './lib/rotation.js'
import { measureMcpCalls } from './lib/mcp-load.js'
import { machineInfo, distFingerprint } from './lib/report.js'
import { writeSection, loadNote, provenance, commandLine } from './lib/sections.js'

const HERE = fileURLToPath(new URL('.', import.meta.url))
const env = process.env
const quick = env.BENCH_QUICK === '1'
const num = (name, full, fast) => env[name] === undefined || env[name] === '' ? (quick ? fast : full) : Number(env[name])
const list = (name, full) => (env[name] === undefined || env[name] === '' ? full : env[name]).split(',').map((s) => s.trim()).filter(Boolean)

const config = {
  runs: num('BENCH_RUNS', 3, 1),
  duration: num('BENCH_DURATION', 10, 3),
  warmup: num('BENCH_WARMUP', 2, 1),
  connections: num('BENCH_CONNECTIONS', 50, 50),
  servers: list('BENCH_HELLO_SERVERS', 'ours,sdk-v1,sdk-v2,mcp-framework,baseline'),
  generations: list('BENCH_HELLO_GENERATIONS', '2026,2025'),
  candidate: env.BENCH_CANDIDATE_DIST,
  quietWaitSeconds: num('BENCH_QUIET_WAIT_S', 20, 5),
  quietBudgetSeconds: num('BENCH_QUIET_BUDGET_S', 120, 20)
}
const outFile = env.BENCH_OUT ?? join(HERE, quick ? 'RESULTS-quick.md' : 'RESULTS.md')

/** Each server's script per generation (absent: it does not speak that generation). */
const SERVERS = {
  ours: { label: 'fastify-mcp-server (ours)', scripts: { 2026: 'catalog-ours.js', 2025: 'catalog-ours.js' } },
  candidate: { label: 'ours (candidate)', scripts: { 2026: 'catalog-ours.js', 2025: 'catalog-ours.js' }, env: { BENCH_OURS_DIST: config.candidate === undefined ? '' : new URL(config.candidate, `file://${process.cwd()}/`).href } },
  'sdk-v1': { label: 'official SDK v1 (@modelcontextprotocol/sdk)', scripts: { 2025: 'catalog-sdk-v1.js' } },
  'sdk-v2': { label: 'official SDK v2 (@modelcontextprotocol/server)', scripts: { 2026: 'catalog-sdk-v2.js', 2025: 'catalog-sdk-v2.js' } },
  'mcp-framework': { label: 'mcp-framework', scripts: { 2025: 'catalog-mcp-framework.js' }, port: true },
  baseline: { label: 'hand-written node:http (reference)', scripts: { 2026: 'baseline-modern-http.js', 2025: 'baseline-http.js' } }
}
if (config.candidate !== undefined && !config.servers.includes('candidate')) config.servers.splice(1, 0, 'candidate')

const CALL = { name: 'add', arguments: { a: 1, b: 2 } }
const isAnswer = (status, body) => status === 200 && body.includes('"result"') && body.includes('"text":"3"')
const describe = (v) => `${v.callsPerSec.toFixed(0)} req/s, avg ${v.latency.average?.toFixed(2)} ms, p50 ${v.latency.p50} ms, p99 ${v.latency.p99} ms, peak RSS ${(v.peakRss / 2 ** 20).toFixed(1)} MiB, server ${v.cpuMicrosPerCall.toFixed(1)} us CPU/call${v.errors ? `, errors ${v.errors} (first: ${v.sample || 'a socket error or timeout'})` : ''}, other load ${v.otherLoad.toFixed(2)} cores`

async function main () {
  const startedAt = new Date()
  const t0 = performance.now()
  const dist = distFingerprint()
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => { killAll(); process.exit(130) })
  process.on('exit', killAll)
  const log = (line) => process.stdout.write(`${line}\n`)
  const quiet = quietGate({ waitSeconds: config.quietWaitSeconds, budgetSeconds: config.quietBudgetSeconds })
  log(`hello-world comparison: ${config.generations.join(', ')} | servers ${config.servers.join(', ')} | ${config.runs} run(s), ${config.warmup} s warm-up + ${config.duration} s, ${config.connections} connections`)
  const results = {}
  for (const generation of config.generations) {
    const entries = config.servers.filter((name) => SERVERS[name]?.scripts[generation] !== undefined).map((name) => ({
      name,
      describe,
      start: async () => startServer(SERVERS[name].scripts[generation], {
        env: { BENCH_CATALOG: 'hello', ...SERVERS[name].env, ...(SERVERS[name].port ? { BENCH_PORT: String(await freePort()) } : {}) }
      }),
      measure: (server) => measureMcpCalls(server, { generation, method: 'tools/call', params: CALL, isAnswer, connections: config.connections, duration: config.duration, warmup: config.warmup, sampleMemory: true })
    }))
    log(`\n== ${generation === '2026' ? '2026-07-28' : '2025-11-25'}`)
    results[generation] = await rotate(entries, { runs: config.runs, quiet, log })
  }
  const elapsedSec = (performance.now() - t0) / 1000
  const markdown = report(results, { machine: machineInfo(), dist, startedAt, elapsedSec, command: commandLine('hello.js') })
  writeSection(outFile, 'hello', markdown)
  writeFileSync(outFile.replace(/\.md$/, '-hello.json'), JSON.stringify({ config, startedAt, elapsedSec, results }, null, 2))
  log(`\n${markdown}\n\nWrote the hello-world section of ${outFile}.`)
  killAll()
  process.exit(0)
}

const f = (v, digits = 1) => v === undefined || Number.isNaN(v) ? 'n/a' : Number(v).toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })

function report (results, context) {
  const md = ['## Hello world, as the published comparisons measure it (issue 25)', '']
  const note = loadNote(Object.assign({}, ...Object.values(results).map((r) => r.median)))
  if (note !== undefined) md.push(note, '')
  md.push(provenance(context), '')
  md.push(`One tool, \`add({ a, b })\`, arguments validated; ${config.connections} concurrent clients (keep-alive connections, one request at a time each, as 50 virtual users) over Streamable HTTP, ${config.warmup} s warm-up then ${config.duration} s of sustained load, ${config.runs} run(s) per server, servers alternating in rotating order, a fresh process per run; medians. On 2025-11-25 each client opens its session first (initialize, initialized); on 2026-07-28 every request stands alone, with \`_meta\` and the three headers, as the official 2026 client sends it. Requests/s and latencies are measured with the load client on the same 2 cores as the server; server CPU per request does not depend on that split. Memory: the server's peak RSS during the load.`, '')
  md.push('| generation | server | requests/s | avg latency ms | p50 ms | p99 ms | peak RSS MiB | server CPU µs/request | CPU µs vs ours | answers checked / errors | other processes, cores |', '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
  for (const generation of config.generations) {
    const entry = results[generation]
    const ours = entry.median.ours?.cpuMicrosPerCall
    for (const name of config.servers) {
      if (entry.runs[name] === undefined) continue
      const v = entry.median[name]
      const label = generation === '2026' ? '2026-07-28' : '2025-11-25'
      if (v === undefined) {
        md.push(`| ${label} | ${SERVERS[name].label} | not available: ${String(entry.unavailable[name] ?? (entry.errors[name] ?? []).join('; ')).replace(/[|\n]/g, ' ').slice(0, 200)} |||||||||`)
        continue
      }
      md.push(`| ${label} | ${SERVERS[name].label} | **${f(v.callsPerSec, 0)}** | ${f(v.latency.average, 2)} | ${f(v.latency.p50, 0)} | ${f(v.latency.p99, 0)} | ${f(v.peakRss / 2 ** 20)} | ${f(v.cpuMicrosPerCall)} | ${ours === undefined ? 'n/a' : `${f(v.cpuMicrosPerCall / ours, 2)}x`} | ${f(v.calls, 0)} / ${f(v.errors, 0)} | ${f(v.otherLoad, 2)} |`)
    }
  }
  md.push('', 'Servers: **ours** `MCPServer` with `server.tool()` (servers/catalog-ours.js); **SDK v1** as its `jsonResponseStreamableHttp.js` example, a McpServer per session; **SDK v2** `createMcpHandler` + `toNodeHandler` behind its localhost guards, a McpServer per request; **mcp-framework** its `http-stream` transport with default options (SSE answers, sessions), the tool a class discovered from `tools/`; **hand-written**: baseline-http.js (2025) and baseline-modern-http.js (2026), the practical ceiling of Node on the machine. SDK v1 and mcp-framework speak 2025-11-25 only.')
  return md.join('\n')
}

await main()
