#!/usr/bin/env node
// `npm run bench`: every workload against ours, the official SDK and a minimal node:http /
// stdio baseline, in one invocation, servers alternating, several runs each (medians), traffic
// to 127.0.0.1 only, every child killed at the end. Writes benchmarks/RESULTS.md and prints the
// headline table. Settings come from the environment; see benchmarks/README.md.
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { startServer, killAll, ServerUnavailable } from './lib/proc.js'
import { medianOf, median } from './lib/stats.js'
import { createAuthKit, AUTH_MODES } from './lib/auth.js'
import { summarize, formatSummary } from './lib/profile.js'
import { machineCpu, waitForQuiet } from './lib/load.js'
import { buildReport, headline, distFingerprint } from './lib/report.js'
import { runStdio } from './clients/stdio-calls.js'
import { runSseCalls } from './clients/sse-calls.js'
import { runStreamableCalls } from './clients/streamable-calls.js'
import { runModernCalls } from './clients/modern-calls.js'
import { runFanout } from './clients/fanout.js'
import { runForwardedPosts, runSpreadCalls } from './clients/scale-calls.js'
import { startCluster } from './lib/cluster.js'
import { redisClusterMissing } from './lib/redis-cluster.js'
import { redisMissing } from './lib/redis.js'

const HERE = fileURLToPath(new URL('.', import.meta.url))
const env = process.env
const quick = env.BENCH_QUICK === '1'
const num = (name, full, fast) => env[name] === undefined || env[name] === '' ? (quick ? fast : full) : Number(env[name])
const list = (name, full, fast) => ((env[name] === undefined || env[name] === '') ? (quick ? fast : full) : env[name]).split(',').map((s) => s.trim()).filter(Boolean)

const config = {
  quick,
  profile: env.BENCH_PROFILE === '1',
  runs: num('BENCH_RUNS', 3, 1),
  duration: num('BENCH_DURATION', 5, 1.5),
  warmup: num('BENCH_WARMUP', 1, 0.5),
  authDuration: num('BENCH_AUTH_DURATION', 3, 1),
  stdioDuration: num('BENCH_STDIO_DURATION', 3, 1),
  stdioDepth: num('BENCH_STDIO_DEPTH', 256, 256),
  sseSessions: num('BENCH_SSE_SESSIONS', 64, 32),
  fanoutSizes: list('BENCH_FANOUT_SIZES', '1000,5000,10000', '1000,5000').map(Number),
  broadcasts: num('BENCH_BROADCASTS', 7, 3),
  warmupBroadcasts: num('BENCH_WARMUP_BROADCASTS', 2, 1),
  fanoutConcurrency: num('BENCH_FANOUT_CONCURRENCY', 100, 100),
  fanoutTimeoutMs: num('BENCH_FANOUT_TIMEOUT_MS', 15000, 10000),
  quietWaitSeconds: num('BENCH_QUIET_WAIT_S', 20, 5),
  quietBudgetSeconds: num('BENCH_QUIET_BUDGET_S', 120, 20),
  workloads: list('BENCH_WORKLOADS', 'stdio,sse,streamable,modern,auth,fanout,scale', 'stdio,sse,streamable,modern,auth,fanout,scale'),
  scaleInstances: num('BENCH_SCALE_INSTANCES', 3, 3),
  forwardedCalls: num('BENCH_FORWARDED_CALLS', 4000, 1000),
  scaleRate: num('BENCH_SCALE_RATE', 2000, 1000),
  servers: list('BENCH_SERVERS', 'ours,sdk,baseline', 'ours,sdk,baseline'),
  // A/B test of a proposed fix: ours built elsewhere (a patched copy of dist/), run as one more server.
  candidate: env.BENCH_CANDIDATE_DIST,
  authModes: list('BENCH_AUTH_MODES', AUTH_MODES.slice(1).join(','), AUTH_MODES.slice(1).join(','))
}
// RESULTS.md is only ever the full, default comparison; anything narrower or experimental goes beside it.
const partial = ['BENCH_WORKLOADS', 'BENCH_SERVERS', 'BENCH_AUTH_MODES', 'BENCH_CANDIDATE_DIST'].some((name) => env[name] !== undefined && env[name] !== '')
const outFile = env.BENCH_OUT ?? join(HERE, config.profile ? 'PROFILE.md' : quick ? 'RESULTS-quick.md' : partial ? 'RESULTS-partial.md' : 'RESULTS.md')

/**
 * Sections of a results file below this line are measurements written by hand (A/B runs of
 * other builds, runs on another day): a new run rewrites everything above it and keeps them.
 */
const HAND_WRITTEN = '<!-- Below: sections written by hand; npm run bench keeps them. -->'
function handWrittenTail (file) {
  const previous = existsSync(file) ? readFileSync(file, 'utf8') : ''
  const at = previous.indexOf(HAND_WRITTEN)
  return at < 0 ? '' : `\n${previous.slice(at)}`
}
const profileDir = join(HERE, 'profiles')
let quietBudgetLeft = config.quietBudgetSeconds

// ---------------------------------------------------------------------------------------------
// File descriptors: 10,000 sessions hold 10,000 client sockets here (plus as many in the server).
// Raise the soft limit to the hard one by re-executing under `ulimit -n`, once.
const neededFds = Math.max(...config.fanoutSizes, 0) + 2048
const fdLimits = readFdLimits()
if (config.workloads.includes('fanout') && fdLimits.soft < neededFds && env.BENCH_REEXEC !== '1') {
  if (fdLimits.hard >= neededFds || fdLimits.hard === Infinity) {
    const target = fdLimits.hard === Infinity ? Math.max(neededFds, 65536) : fdLimits.hard
    const child = spawn('sh', ['-c', `ulimit -n ${target} && exec "$0" "$@"`, process.execPath, ...process.execArgv, fileURLToPath(import.meta.url)], {
      stdio: 'inherit',
      env: { ...env, BENCH_REEXEC: '1' }
    })
    child.on('exit', (code, signal) => process.exit(code ?? (signal === null ? 1 : 128)))
    for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal))
  } else {
    const cap = fdLimits.hard - 2048
    config.fanoutSizes = config.fanoutSizes.filter((n) => n <= cap)
    config.fdNote = `the hard limit of open files (${fdLimits.hard}) caps the fan-out at ${cap} sessions`
    await main()
  }
} else {
  await main()
}

function readFdLimits () {
  try {
    const soft = execFileSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).trim()
    const hard = execFileSync('sh', ['-c', 'ulimit -Hn'], { encoding: 'utf8' }).trim()
    const parse = (v) => v === 'unlimited' ? Infinity : Number(v)
    return { soft: parse(soft), hard: parse(hard) }
  } catch {
    return { soft: Infinity, hard: Infinity }
  }
}

// ---------------------------------------------------------------------------------------------
async function main () {
  const startedAt = new Date()
  const distAtStart = distFingerprint()
  const t0 = performance.now()
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => { killAll(); process.exit(130) })
  process.on('exit', killAll)
  if (config.profile) {
    rmSync(profileDir, { recursive: true, force: true })
    mkdirSync(profileDir, { recursive: true })
  }
  const log = (line) => process.stdout.write(`${line}\n`)
  log(`fastify-mcp-server benchmarks${quick ? ' (quick)' : ''}${config.profile ? ' (profiling ours)' : ''}: ${config.workloads.join(', ')} | ${config.runs} run(s) | node ${process.version} | fd limit ${readFdLimits().soft}`)
  if (process.execPath.includes('node_modules')) {
    log(`WARNING: running on ${process.execPath} (a node binary installed from npm into node_modules), not the machine's Node`)
  }

  const needsAuth = config.workloads.includes('auth')
  const kit = needsAuth ? await createAuthKit() : undefined
  const workloads = []
  const add = (w) => workloads.push(w)

  if (config.workloads.includes('stdio')) {
    const scripts = { ours: 'ours-stdio.js', sdk: 'sdk-stdio.js', baseline: 'baseline-stdio.js' }
    for (const mode of ['sequential', 'pipelined']) {
      add({
        key: `stdio-${mode}`,
        title: `stdio ${mode}${mode === 'pipelined' ? ` (${config.stdioDepth} calls written, then read; latencies are per batch)` : ''}`,
        scripts,
        stdio: true,
        run: (server) => runStdio({ server, mode, duration: config.stdioDuration, warmup: config.warmup, depth: config.stdioDepth })
      })
    }
  }
  const sseScripts = { ours: 'ours-http.js', sdk: 'sdk-sse.js', baseline: 'baseline-http.js' }
  if (config.workloads.includes('sse')) {
    add({
      key: 'sse-calls',
      title: `legacy SSE tools/call (${config.sseSessions} sessions, autocannon POSTs, answers read from the streams)`,
      scripts: sseScripts,
      run: (server) => runSseCalls({ server, sessions: config.sseSessions, duration: config.duration, warmup: config.warmup })
    })
  }
  if (config.workloads.includes('streamable')) {
    add({
      key: 'streamable-calls',
      title: `Streamable HTTP tools/call (${config.sseSessions} sessions, autocannon POSTs, JSON answers)`,
      scripts: { ours: 'ours-http.js', sdk: 'sdk-streamable.js', baseline: 'baseline-http.js' },
      run: (server) => runStreamableCalls({ server, sessions: config.sseSessions, duration: config.duration, warmup: config.warmup })
    })
  }
  if (config.workloads.includes('modern')) {
    // Issue 25: ours on 2026-07-28 against the hand-written 2026 baseline and against our own
    // 2025-11-25 session path ('ours-2025': the streamable workload's client), in one rotation.
    if (config.servers.includes('ours') && !config.servers.includes('ours-2025')) config.servers.splice(config.servers.indexOf('ours') + 1, 0, 'ours-2025')
    add({
      key: 'streamable-modern-calls',
      title: `Streamable HTTP tools/call on 2026-07-28 (stateless: no session, ${config.sseSessions} connections, per-request _meta and headers, JSON answers), beside ours on 2025-11-25 sessions`,
      // The SDK v1 server of the benchmark speaks 2025-11-25 only.
      scripts: { ours: 'ours-http.js', 'ours-2025': 'ours-http.js', baseline: 'baseline-modern-http.js' },
      run: (server, name) => name === 'ours-2025'
        ? runStreamableCalls({ server, sessions: config.sseSessions, duration: config.duration, warmup: config.warmup })
        : runModernCalls({ server, connections: config.sseSessions, duration: config.duration, warmup: config.warmup })
    })
  }
  if (needsAuth) {
    for (const mode of config.authModes) {
      add({
        key: `auth-${mode}`,
        title: `auth ${mode}: legacy SSE tools/call, every request authenticated`,
        scripts: sseScripts,
        env: { BENCH_AUTH: JSON.stringify(kit.serverConfig(mode)) },
        run: (server) => runSseCalls({ server, sessions: config.sseSessions, duration: config.authDuration, warmup: config.warmup, headersFor: (i) => kit.headersFor(mode, i) })
      })
    }
  }
  if (config.workloads.includes('fanout')) {
    add({
      key: 'fanout',
      title: `SSE fan-out (${config.fanoutSizes.join(', ')} sessions, ${config.broadcasts} broadcasts each)`,
      scripts: sseScripts,
      timeoutMs: 600_000,
      run: (server) => runFanout({ server, sizes: config.fanoutSizes, broadcasts: config.broadcasts, warmupBroadcasts: config.warmupBroadcasts, concurrency: config.fanoutConcurrency, timeoutMs: config.fanoutTimeoutMs, log })
    })
  }

  if (config.workloads.includes('scale')) {
    // 'cluster': N instances of ours on one redis-server (lib/cluster.js), measured as one server.
    const cluster = async () => {
      const missing = redisMissing()
      if (missing !== undefined) throw new ServerUnavailable(missing)
      return await startCluster({ instances: config.scaleInstances })
    }
    const independent = async () => await startCluster({ instances: config.scaleInstances, redis: false })
    // 'redis-cluster': the same N instances on a 3-primary Redis Cluster (issue 24).
    const redisCluster = async () => {
      const missing = redisClusterMissing()
      if (missing !== undefined) throw new ServerUnavailable(missing)
      return await startCluster({ instances: config.scaleInstances, redis: 'cluster' })
    }
    for (const name of ['independent', 'cluster', 'redis-cluster']) if (!config.servers.includes(name)) config.servers.push(name)
    add({
      key: 'scale-calls',
      title: `Scale-out: Streamable HTTP tools/call, ${config.scaleInstances} instances + redis-server against one instance without scale-out (${config.sseSessions} sessions, each call to the next session and the next instance)`,
      scripts: { ours: 'ours-http.js', independent: 'ours-http.js', cluster: 'ours-http.js', 'redis-cluster': 'ours-http.js' },
      start: { independent, cluster, 'redis-cluster': redisCluster },
      run: (server) => runSpreadCalls({ server, sessions: config.sseSessions, duration: config.duration, warmup: config.warmup })
    })
    add({
      key: 'scale-paced',
      title: `Scale-out, paced: the same Streamable HTTP tools/call at ${config.scaleRate} calls/s in all (no process saturated), ${config.scaleInstances} instances + redis-server against one instance without scale-out`,
      scripts: { ours: 'ours-http.js', independent: 'ours-http.js', cluster: 'ours-http.js' },
      start: { independent, cluster },
      run: (server) => runSpreadCalls({ server, sessions: config.sseSessions, duration: config.duration, warmup: config.warmup, rate: config.scaleRate })
    })
    add({
      key: 'scale-forwarded',
      title: `Scale-out: legacy SSE tools/call POSTed to the stream's instance or to another one (forwarded over Redis), ${config.forwardedCalls} sequential calls alternating`,
      scripts: { cluster: 'ours-http.js' },
      start: { cluster },
      run: (server) => runForwardedPosts({ server, calls: config.forwardedCalls })
    })
  }

  if (config.candidate !== undefined) {
    if (!config.servers.includes('candidate')) config.servers.splice(1, 0, 'candidate')
    const dist = new URL(config.candidate, `file://${process.cwd()}/`).href
    for (const workload of workloads) {
      workload.scripts = { ...workload.scripts, candidate: workload.scripts.ours }
      // BENCH_CANDIDATE_OTEL=1: the candidate runs with an OpenTelemetry SDK registered (servers/otel-sdk.js).
      workload.envFor = { candidate: { BENCH_OURS_DIST: dist, ...(env.BENCH_CANDIDATE_OTEL === '1' ? { BENCH_OTEL: '1' } : {}) } }
    }
  }
  const results = {}
  for (const workload of workloads) {
    log(`\n== ${workload.title}`)
    const workloadStart = performance.now()
    const entry = { title: workload.title, runs: {}, median: {}, unavailable: {}, errors: {} }
    results[workload.key] = entry
    const names = config.servers.filter((name) => workload.scripts[name] !== undefined)
    for (const name of names) entry.runs[name] = []
    for (let run = 0; run < config.runs; run++) {
      // Alternate the order from run to run so that no server always goes first (or last).
      const order = names.map((_, i) => names[(i + run) % names.length])
      for (const name of order) {
        if (entry.unavailable[name] !== undefined) continue
        const result = await runOne(workload, name, run, log)
        if (result.unavailable !== undefined) {
          entry.unavailable[name] = result.unavailable
          log(`  ${name}: not available: ${result.unavailable}`)
        } else if (result.error !== undefined) {
          ;(entry.errors[name] ??= []).push(result.error)
          log(`  ${name} run ${run + 1}: failed: ${result.error}`)
        } else {
          entry.runs[name].push(result.value)
          log(`  ${name} run ${run + 1}: ${oneLine(workload.key, result.value)}`)
        }
      }
    }
    entry.seconds = (performance.now() - workloadStart) / 1000
    log(`  (${entry.seconds.toFixed(0)} s)`)
    for (const name of names) {
      if (entry.runs[name].length > 0) entry.median[name] = workload.key === 'fanout' ? fanoutMedian(entry.runs[name]) : medianOf(entry.runs[name])
    }
  }

  const profiles = []
  if (config.profile) {
    for (const file of readdirSync(profileDir).filter((f) => f.endsWith('.cpuprofile')).sort()) {
      const summary = summarize(join(profileDir, file), 30)
      profiles.push(summary)
      log(`\n${formatSummary(summary)}`)
    }
  }
  kit?.close()
  const elapsedSec = (performance.now() - t0) / 1000
  const report = buildReport({ config, results, startedAt, elapsedSec, profiles, fdLimits: readFdLimits(), distAtStart })
  writeFileSync(outFile, report.markdown + handWrittenTail(outFile))
  writeFileSync(outFile.replace(/\.md$/, '.json'), JSON.stringify({ config, startedAt, elapsedSec, machine: report.machine, results }, null, 2))
  log(`\n${headline(report)}\n\nWrote ${outFile} in ${elapsedSec.toFixed(0)} s.`)
  if (distFingerprint().digest !== distAtStart.digest) log('WARNING: dist/ was rebuilt during the run; the figures mix two builds. Run again.')
  killAll()
  process.exit(0)
}

async function runOne (workload, name, run, log) {
  const script = workload.scripts[name]
  // Wait for other processes to calm down, within a budget for the whole invocation.
  const waitStart = performance.now()
  const idleBefore = await waitForQuiet({ maxSeconds: Math.min(config.quietWaitSeconds, quietBudgetLeft), log })
  quietBudgetLeft = Math.max(0, quietBudgetLeft - (performance.now() - waitStart) / 1000)
  let server
  try {
    const profiling = config.profile && (name === 'ours' || name === 'ours-2025' || name === 'candidate')
    // A deployment of several processes (scale-out) has its own starter; every other server is one script.
    const start = workload.start?.[name] ?? (async () => await startServer(script, {
      stdio: workload.stdio,
      env: { ...workload.env, ...workload.envFor?.[name] },
      profileDir: profiling ? profileDir : undefined,
      profileName: profiling ? `${workload.key}-${name}-run${run + 1}` : undefined
    }))
    server = await start()
  } catch (error) {
    if (error instanceof ServerUnavailable) return { unavailable: error.message }
    return { error: error.message }
  }
  const limitMs = workload.timeoutMs ?? ((config.duration + config.warmup) * 2000 + 120_000)
  let timer
  try {
    // Everything else the machine did meanwhile: total busy CPU minus this runner and the server.
    const machine0 = machineCpu()
    const server0 = await server.usage()
    const runner0 = process.cpuUsage()
    const wall0 = performance.now()
    const value = await Promise.race([
      workload.run(server, name),
      new Promise((resolve, reject) => { timer = setTimeout(() => reject(new Error(`gave up after ${limitMs / 1000} s`)), limitMs) })
    ])
    const server1 = await server.usage()
    const runner1 = process.cpuUsage(runner0)
    const machine1 = machineCpu()
    const wallMicros = (performance.now() - wall0) * 1000
    const others = machine1.busy - machine0.busy - (server1.cpuMicros - server0.cpuMicros) - (runner1.user + runner1.system)
    value.otherLoad = Math.max(0, others / wallMicros)
    value.loadBefore = idleBefore
    return { value }
  } catch (error) {
    // A route that does not exist yet (ours before its transport lands) is "not available".
    if (run === 0 && (name === 'ours' || name === 'candidate') && /answered 404|not found/i.test(error.message)) {
      return { unavailable: `${workload.key.startsWith('streamable') ? 'POST /mcp' : 'GET /sse'} is not served yet (${error.message.slice(0, 160)})` }
    }
    return { error: `${error.message}${server.stderr() ? ` | stderr: ${server.stderr().trim().split('\n').slice(-3).join(' / ')}` : ''}` }
  } finally {
    clearTimeout(timer)
    await server.stop()
  }
}

function fanoutMedian (runs) {
  // Per size: the median over runs of each run's median broadcast; losses are summed, not medianed.
  const sizes = runs[0].results.map((row) => row.size)
  return {
    otherLoad: median(runs.map((r) => r.otherLoad)),
    duplicates: runs.reduce((sum, r) => sum + r.duplicates, 0),
    stray: runs.reduce((sum, r) => sum + r.stray, 0),
    sizes: sizes.map((size) => {
      const rows = runs.map((r) => r.results.find((row) => row.size === size)).filter(Boolean)
      const perRun = rows.map((row) => ({
        ms: median(row.broadcasts.map((b) => b.ms)),
        deliveriesPerSec: median(row.broadcasts.map((b) => b.deliveriesPerSec)),
        serverCallMs: median(row.broadcasts.map((b) => b.serverCallMs)),
        cpuMicros: median(row.broadcasts.map((b) => b.cpuMicros))
      }))
      const all = rows.flatMap((row) => row.broadcasts)
      return {
        size,
        connected: median(rows.map((row) => row.connected)),
        failures: rows.reduce((sum, row) => sum + row.failures, 0),
        openPerSec: median(rows.map((row) => row.openPerSec)),
        openCpuMicrosPerSession: median(rows.map((row) => row.openCpuMicrosPerSession)),
        rssPerSession: median(rows.map((row) => row.rssPerSession)),
        heapPerSession: median(rows.map((row) => row.heapPerSession)),
        broadcastMs: median(perRun.map((r) => r.ms)),
        broadcastMsRuns: perRun.map((r) => r.ms),
        deliveriesPerSec: median(perRun.map((r) => r.deliveriesPerSec)),
        serverCallMs: median(perRun.map((r) => r.serverCallMs)),
        broadcastCpuMicros: median(perRun.map((r) => r.cpuMicros)),
        broadcastsSent: all.length,
        expected: all.reduce((sum, b) => sum + b.expected, 0),
        received: all.reduce((sum, b) => sum + b.received, 0),
        lost: all.reduce((sum, b) => sum + b.lost, 0) + rows.reduce((sum, row) => sum + row.warmupLost, 0)
      }
    })
  }
}

function oneLine (key, v) {
  if (key === 'fanout') {
    return v.results.map((row) => `${row.size}: ${median(row.broadcasts.map((b) => b.ms)).toFixed(1)} ms, lost ${row.broadcasts.reduce((s, b) => s + b.lost, 0)}, ${(row.rssPerSession / 1024).toFixed(1)} KB/session, ${row.openPerSec.toFixed(0)} opened/s`).join(' | ') + `, other load ${v.otherLoad.toFixed(2)} cores`
  }
  if (key === 'scale-forwarded') {
    return `p50 ${v.toOwner.p50?.toFixed(3)} ms to the stream's instance, ${v.viaOther.p50?.toFixed(3)} ms forwarded (+${v.addedP50?.toFixed(3)} ms), errors ${v.errors}, other load ${v.otherLoad.toFixed(2)} cores`
  }
  if (v.redisCommandsPerCall !== undefined) {
    return `${v.callsPerSec.toFixed(0)} calls/s, ${v.cpuMicrosPerCall.toFixed(1)} us CPU/call summed (redis-server ${v.redisCpuMicrosPerCall.toFixed(2)}), ${v.redisCommandsPerCall.toFixed(4)} Redis commands/call${v.errors ? `, errors ${v.errors}` : ''}, other load ${v.otherLoad.toFixed(2)} cores`
  }
  const p = v.latency ?? v.batchLatency
  return `${v.callsPerSec.toFixed(0)} calls/s, server ${v.cpuMicrosPerCall.toFixed(1)} us CPU/call, p50 ${p?.p50?.toFixed(2)} ms, p99 ${p?.p99?.toFixed(2)} ms${v.lost ? `, lost ${v.lost}` : ''}${v.errors ? `, errors ${v.errors}` : ''}, other load ${v.otherLoad.toFixed(2)} cores`
}
