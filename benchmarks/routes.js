#!/usr/bin/env node
// Routes as tools (issue 21): what a tools/call of a route tool costs the server, against a tool
// registered by hand doing the same work, and against a tool registered by hand that injects the
// route itself (the direct tool plus one inject(), measured as a whole: an inject() inside a
// request costs more than one alone, its objects living across the request's turns), in one
// invocation, each run in a fresh server process (servers/ours-routes.js), the workloads rotating
// their order from run to run; and, in the same process, the CPU of one inject() of that route
// alone. The claim to check: a route tool costs at most the direct tool plus one inject().
//
//   npm run build && node benchmarks/routes.js
//
// Streamable HTTP, 2025-11-25 sessions, autocannon POSTs as the `streamable` workload of
// `npm run bench` (benchmarks/README.md). Settings: BENCH_RUNS (5), BENCH_DURATION (4 s),
// BENCH_WARMUP (1 s), BENCH_SESSIONS (32), BENCH_INJECTS (20000). Prints a Markdown table and the
// machine's load; benchmarks/RESULTS.md keeps the figures ("Routes as tools").
import { cpus, loadavg } from 'node:os'
import { execFileSync } from 'node:child_process'
import { openStreamableSession } from './clients/streamable-calls.js'
import { pool, postAgent } from './clients/sse.js'
import { machineBusy, waitForQuiet } from './lib/load.js'
import { measurePostedCalls } from './lib/posted-calls.js'
import { killAll, startServer } from './lib/proc.js'
import { median } from './lib/stats.js'

const env = process.env
const runs = Number(env.BENCH_RUNS ?? 5)
const duration = Number(env.BENCH_DURATION ?? 4)
const warmup = Number(env.BENCH_WARMUP ?? 1)
const sessions = Number(env.BENCH_SESSIONS ?? 32)
const injectCalls = Number(env.BENCH_INJECTS ?? 20000)
const log = (line) => process.stderr.write(`${line}\n`)

async function calls (server, opened, tool) {
  return await measurePostedCalls({
    server,
    connections: sessions,
    duration,
    warmup,
    path: '/mcp',
    headersOf: (i) => ({ 'content-type': 'application/json', ...opened[i].headers }),
    bodyOf: (id) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"${tool}","arguments":{"a":1,"b":2}}}`
  })
}

const TOOLS = { direct: 'add', byHand: 'add_inject', route: 'add_route' }
const figures = { direct: [], byHand: [], route: [], inject: [], others: [] }
try {
  for (let run = 0; run < runs; run++) {
    await waitForQuiet({ log })
    figures.others.push(await machineBusy(1000))
    const server = await startServer('ours-routes.js')
    try {
      const agent = postAgent(16)
      const opened = await pool(sessions, 16, () => openStreamableSession(server.url, { agent }))
      agent.destroy()
      const names = Object.keys(TOOLS)
      const order = names.map((_, i) => names[(i + run) % names.length])
      for (const workload of order) {
        const result = await calls(server, opened, TOOLS[workload])
        if (result.errors > 0) throw new Error(`${workload}: ${result.errors} bad answers, e.g. ${result.sample}`)
        figures[workload].push(result.cpuMicrosPerCall)
        log(`run ${run + 1}/${runs} ${workload}: ${result.cpuMicrosPerCall.toFixed(1)} µs server CPU per call, ${Math.round(result.callsPerSec)} calls/s`)
      }
      const inject = await server.command('inject', { calls: injectCalls, concurrency: sessions }, 120000)
      figures.inject.push(inject.cpuMicrosPerInject)
      log(`run ${run + 1}/${runs} inject: ${inject.cpuMicrosPerInject.toFixed(1)} µs CPU per inject()`)
    } finally {
      await server.stop()
    }
  }
} finally {
  killAll()
}

const direct = median(figures.direct)
const byHand = median(figures.byHand)
const route = median(figures.route)
const inject = median(figures.inject)
const others = median(figures.others)
const fmt = (micros) => `${micros.toFixed(1)} µs`
let commit = 'unknown'
try { commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim() } catch {}
const busy = others > 0.3
process.stdout.write([
  `Routes as tools, ${new Date().toISOString()}, commit ${commit}, Node ${process.version}, ${cpus().length} cores; ` +
    `${runs} runs (fresh server each, the order of the three call workloads rotating), ${sessions} sessions, ${duration} s measured after ${warmup} s warm-up; ` +
    `other processes before each run: median ${others.toFixed(2)} cores (${figures.others.map((load) => load.toFixed(2)).join(', ')}); load average at the end ${loadavg().map((load) => load.toFixed(2)).join(' ')}` +
    (busy ? ' — MEASURED ON A LOADED MACHINE: compare within this run only, re-measure on a quiet one.' : '.'),
  '',
  '| server CPU, medians | µs | per run |',
  '|---|---:|---|',
  `| tools/call of a tool registered by hand (\`add\`) | ${fmt(direct)} | ${figures.direct.map((v) => v.toFixed(1)).join(', ')} |`,
  `| tools/call of a tool registered by hand that injects \`POST /add\` itself (\`add_inject\`) | ${fmt(byHand)} | ${figures.byHand.map((v) => v.toFixed(1)).join(', ')} |`,
  `| tools/call of the route tool (\`add_route\` = \`POST /add\`) | ${fmt(route)} | ${figures.route.map((v) => v.toFixed(1)).join(', ')} |`,
  `| one \`inject()\` of \`POST /add\` alone, same process | ${fmt(inject)} | ${figures.inject.map((v) => v.toFixed(1)).join(', ')} |`,
  `| route tool − direct tool | ${fmt(route - direct)} | ${figures.route.map((v, i) => (v - figures.direct[i]).toFixed(1)).join(', ')} |`,
  '',
  `Route tool ≤ the direct tool plus one inject() in the request (\`add_inject\`): ${fmt(route)} vs ${fmt(byHand)} = ${(route / byHand).toFixed(2)}x: ${route <= byHand ? 'yes' : 'no'}.`,
  `Route tool ≤ direct tool + one inject() alone: ${fmt(route)} vs ${fmt(direct)} + ${fmt(inject)} = ${fmt(direct + inject)}: ${route <= direct + inject ? 'yes' : 'no'} (the route's way costs ${((route - direct) / inject).toFixed(2)}x one inject() alone).`,
  ''
].join('\n'))
