#!/usr/bin/env node
// `npm run bench:coldstart`: from process start to the first answered tools/call, as an MCP host
// sees it when it launches a server: ours, the official SDK v1 and SDK v2, each serving the
// demo-sized catalog (4 tools, 1 prompt, 2 resources) and the large one (100 tools, 20 prompts,
// 50 resources), over stdio and over HTTP, on both generations. The clock starts right before
// spawn and stops at the tools/call answer, after what the official clients send first:
// 2025-11-25 initialize + notifications/initialized; 2026-07-28 server/discover (the 2.4.0
// client's probe). Over HTTP the client connects as soon as the port accepts (polled every 2 ms)
// and the time the port opened is reported too. Launches alternate between servers in rotating
// order; medians of BENCH_LAUNCHES launches per cell. Writes its section of benchmarks/RESULTS.md.
import { spawn } from 'node:child_process'
import { connect } from 'node:net'
import http from 'node:http'
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { freePort } from './lib/ports.js'
import { quietGate } from './lib/rotation.js'
import { median } from './lib/stats.js'
import { machineInfo, distFingerprint } from './lib/report.js'
import { writeSection, provenance, commandLine } from './lib/sections.js'
import { machineCpu } from './lib/load.js'
import { CLIENT_CAPABILITIES, LEGACY_VERSION, MODERN_VERSION, modernRequest } from './clients/mcp-http.js'
import { SERVER_INFO } from './servers/shared.js'
import { CALLED_TOOL, argumentsOf, catalogOf, expectedInAnswer, writeCatalogFile } from './catalog/catalog.js'

const HERE = fileURLToPath(new URL('.', import.meta.url))
const SERVERS_DIR = join(HERE, 'servers')
const env = process.env
const quick = env.BENCH_QUICK === '1'
const num = (name, full, fast) => env[name] === undefined || env[name] === '' ? (quick ? fast : full) : Number(env[name])
const list = (name, full) => (env[name] === undefined || env[name] === '' ? full : env[name]).split(',').map((s) => s.trim()).filter(Boolean)

const config = {
  launches: num('BENCH_LAUNCHES', 10, 3),
  servers: list('BENCH_COLDSTART_SERVERS', 'ours,sdk-v1,sdk-v2'),
  transports: list('BENCH_COLDSTART_TRANSPORTS', 'stdio,http'),
  sizes: list('BENCH_COLDSTART_CATALOGS', 'demo,large'),
  generations: list('BENCH_COLDSTART_GENERATIONS', '2025,2026'),
  candidate: env.BENCH_CANDIDATE_DIST,
  quietWaitSeconds: num('BENCH_QUIET_WAIT_S', 10, 3),
  quietBudgetSeconds: num('BENCH_QUIET_BUDGET_S', 120, 20),
  timeoutMs: 60_000
}
const outFile = env.BENCH_OUT ?? join(HERE, quick ? 'RESULTS-quick.md' : 'RESULTS.md')
// Each catalog written once as JSON, which the servers read: a cold start pays for the framework,
// not for generating the benchmark's catalog (ours gets its JSON Schemas as literals, the SDKs
// build their zod schemas from it as their users' code does at start-up).
const catalogFiles = Object.fromEntries(config.sizes.map((size) => [size, writeCatalogFile(size, join(HERE, '.tmp'))]))
const calledTools = Object.fromEntries(config.sizes.map((size) => [size, catalogOf(size).tools.find((t) => t.name === CALLED_TOOL)]))

const SERVERS = {
  ours: { label: 'ours', script: 'catalog-ours.js', generations: ['2025', '2026'] },
  candidate: { label: env.BENCH_CANDIDATE_LABEL || 'ours (candidate)', script: 'catalog-ours.js', generations: ['2025', '2026'], env: { BENCH_OURS_DIST: config.candidate === undefined ? '' : new URL(config.candidate, `file://${process.cwd()}/`).href } },
  'sdk-v1': { label: 'SDK v1', script: 'catalog-sdk-v1.js', generations: ['2025'] },
  'sdk-v2': { label: 'SDK v2', script: 'catalog-sdk-v2.js', generations: ['2025', '2026'] }
}
if (config.candidate !== undefined && !config.servers.includes('candidate')) config.servers.splice(1, 0, 'candidate')

class PortTaken extends Error {}

/** The client's messages, in order: each but notifications waits for its answer. */
function conversation (generation, tool) {
  const call = { name: tool.name, arguments: argumentsOf(tool) }
  if (generation === '2026') {
    return [
      { method: 'server/discover', ...modernRequest('server/discover') },
      { method: 'tools/call', ...modernRequest('tools/call', call) }
    ].map(({ method, headers, bodyOf }, i) => ({ method, id: i + 1, headers, body: bodyOf(i + 1) }))
  }
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
  return [
    { method: 'initialize', id: 1, headers, body: JSON.stringify({ method: 'initialize', params: { protocolVersion: LEGACY_VERSION, capabilities: CLIENT_CAPABILITIES, clientInfo: { name: 'bench-client', version: '1.0.0' } }, jsonrpc: '2.0', id: 1 }) },
    { method: 'notifications/initialized', headers, body: '{"method":"notifications/initialized","jsonrpc":"2.0"}' },
    { method: 'tools/call', id: 2, headers, body: JSON.stringify({ method: 'tools/call', params: call, jsonrpc: '2.0', id: 2 }) }
  ]
}

/** One launch: resolves with { firstAnswerMs, listeningMs? } or rejects; the child is killed either way. */
async function launch (name, { transport, size, generation }) {
  const tool = calledTools[size]
  const messages = conversation(generation, tool)
  const port = transport === 'http' ? await freePort() : 0
  const started = performance.now()
  const child = spawn(process.execPath, [join(SERVERS_DIR, SERVERS[name].script)], {
    env: { ...process.env, ...SERVERS[name].env, BENCH_CATALOG: size, BENCH_CATALOG_FILE: catalogFiles[size], BENCH_TRANSPORT: transport, BENCH_PORT: String(port) },
    stdio: ['pipe', 'pipe', 'pipe']
  })
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (chunk) => { if (stderr.length < 4000) stderr += chunk })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  let timer
  try {
    const run = transport === 'stdio' ? overStdio(child, messages) : overHttp(port, messages, exited)
    const answer = await Promise.race([
      run,
      exited.then((code) => { throw new Error(`exited (${code}) before answering: ${stderr.trim().split('\n').slice(-2).join(' / ')}`) }),
      new Promise((resolve, reject) => { timer = setTimeout(() => reject(new Error(`no answer within ${config.timeoutMs} ms`)), config.timeoutMs) })
    ])
    const firstAnswerMs = performance.now() - started
    // Over HTTP another process on this machine may have taken the port between our probe and the
    // server's listen (the server then exits), and answered in its stead: not a figure of ours.
    if (!answer.first.includes(`"name":"${SERVER_INFO.name}"`)) throw new PortTaken(`another process answered on port ${port}: ${answer.first.slice(0, 120)}`)
    if (!answer.body.includes(expectedInAnswer(tool)) || answer.body.includes('"isError":true')) throw new Error(`wrong answer: ${answer.body.slice(0, 200)}`)
    return { firstAnswerMs, listeningMs: answer.listenedAt === undefined ? undefined : answer.listenedAt - started }
  } finally {
    clearTimeout(timer)
    child.kill('SIGKILL')
    await exited
  }
}

/** Writes each message as soon as the previous answer came; resolves with the last answer's line. */
async function overStdio (child, messages) {
  let buffer = ''
  const waiting = new Map()
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    buffer += chunk
    for (let at = buffer.indexOf('\n'); at !== -1; at = buffer.indexOf('\n')) {
      const line = buffer.slice(0, at)
      buffer = buffer.slice(at + 1)
      const id = /"id"\s*:\s*(\d+)/.exec(line)?.[1]
      waiting.get(Number(id))?.(line)
    }
  })
  const answers = []
  for (const message of messages) {
    const answered = message.id === undefined ? undefined : new Promise((resolve) => waiting.set(message.id, resolve))
    child.stdin.write(`${message.body}\n`)
    if (answered !== undefined) answers.push(await answered)
  }
  return { first: answers[0], body: answers.at(-1) }
}

async function overHttp (port, messages, exited) {
  let gone = false
  exited.then(() => { gone = true })
  // Connect as a host does: retry until the port accepts.
  for (;;) {
    const open = await new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1', () => { socket.destroy(); resolve(true) })
      socket.once('error', () => resolve(false))
    })
    if (open) break
    if (gone) throw new Error('exited before listening')
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
  const listenedAt = performance.now()
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  let session
  let body
  let first
  try {
    for (const message of messages) {
      const headers = { ...message.headers, ...(session === undefined ? {} : { 'mcp-session-id': session, 'mcp-protocol-version': LEGACY_VERSION }) }
      const answer = await postOnce(port, message.body, headers, agent)
      if (answer.status >= 300) throw new Error(`${message.method} answered ${answer.status}: ${answer.body.slice(0, 160)}`)
      if (message.method === 'initialize' && typeof answer.headers['mcp-session-id'] === 'string') session = answer.headers['mcp-session-id']
      body = answer.body
      first ??= answer.body
    }
  } finally {
    agent.destroy()
  }
  return { first, body, listenedAt }
}

function postOnce (port, payload, headers, agent) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(payload) } }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk) => { text += chunk })
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: text }))
    })
    req.on('error', reject)
    req.end(payload)
  })
}

/** The floor: spawning Node on an empty script until it exits. */
async function nodeFloor () {
  const started = performance.now()
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' })
  await new Promise((resolve) => child.once('exit', resolve))
  return performance.now() - started
}

async function main () {
  const startedAt = new Date()
  const t0 = performance.now()
  const dist = distFingerprint()
  const log = (line) => process.stdout.write(`${line}\n`)
  const quiet = quietGate({ waitSeconds: config.quietWaitSeconds, budgetSeconds: config.quietBudgetSeconds })
  const machine0 = machineCpu()
  const cells = []
  for (const transport of config.transports) {
    for (const size of config.sizes) {
      for (const generation of config.generations) {
        const names = config.servers.filter((n) => SERVERS[n]?.generations.includes(generation))
        if (names.length > 0) cells.push({ transport, size, generation, names })
      }
    }
  }
  log(`cold start: ${cells.length} cells x ${config.launches} launches | servers ${config.servers.join(', ')}`)
  const floor = []
  const results = []
  for (const cell of cells) {
    log(`\n== ${cell.transport}, ${cell.size} catalog, ${cell.generation === '2026' ? MODERN_VERSION : LEGACY_VERSION}`)
    const runs = Object.fromEntries(cell.names.map((n) => [n, []]))
    const errors = Object.fromEntries(cell.names.map((n) => [n, []]))
    for (let i = 0; i < config.launches; i++) {
      await quiet(log)
      floor.push(await nodeFloor())
      for (const name of cell.names.map((_, k) => cell.names[(k + i) % cell.names.length])) {
        for (let attempt = 1; ; attempt++) {
          try {
            runs[name].push(await launch(name, cell))
          } catch (error) {
            // A port taken by someone else says nothing about the server: launch again (twice at most).
            if (error instanceof PortTaken && attempt < 3) {
              log(`  ${name} launch ${i + 1}: ${error.message}; again`)
              continue
            }
            errors[name].push(error.message)
            log(`  ${name} launch ${i + 1}: failed: ${error.message}`)
          }
          break
        }
      }
    }
    for (const name of cell.names) {
      const first = runs[name].map((r) => r.firstAnswerMs)
      log(`  ${name}: first answer ${median(first)?.toFixed(1)} ms (${first.map((v) => v.toFixed(0)).join(', ')})`)
    }
    results.push({ ...cell, runs, errors })
  }
  const elapsedSec = (performance.now() - t0) / 1000
  const otherLoad = Math.max(0, (machineCpu().busy - machine0.busy) / (elapsedSec * 1e6) - 1)
  const markdown = report(results, floor, otherLoad, { machine: machineInfo(), dist, startedAt, elapsedSec, command: commandLine('coldstart.js') })
  writeSection(outFile, 'coldstart', markdown)
  writeFileSync(outFile.replace(/\.md$/, '-coldstart.json'), JSON.stringify({ config, startedAt, elapsedSec, floor, results }, null, 2))
  log(`\n${markdown}\n\nWrote the cold-start section of ${outFile}.`)
}

const f = (v, digits = 0) => v === undefined || Number.isNaN(v) ? 'n/a' : Number(v).toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })

function report (results, floor, otherLoad, context) {
  const md = ['## Cold start (issue 25)', '']
  // The runner is mostly idle here (one launch at a time), so anything past one busy core is others'.
  if (otherLoad > 0.25) md.push(`**Measured on a loaded machine, provisional:** the machine was ${f(otherLoad + 1, 2)} cores busy on average while this runner kept at most one busy, so others used about ${f(otherLoad, 2)}. Start-up times stretch with the load; re-measure on a quiet machine with the command below.`, '')
  md.push(provenance(context), '')
  md.push(`From spawn to the answer of the first \`tools/call\` (\`${CALLED_TOOL}\`, checked), ${config.launches} launches per server and cell, servers alternating in rotating order; medians, with the fastest and slowest launch. Node itself (spawning \`node -e ''\` to its exit) took ${f(median(floor), 1)} ms (median of ${floor.length}) on the same machine meanwhile. Catalogs: demo = 4 tools, 1 prompt, 2 resources (the size of examples/demo-server.js); large = 100 tools, 20 prompts, 50 resources (benchmarks/catalog/).`, '')
  md.push('| transport | catalog | generation | server | first tools/call answered, ms | fastest – slowest, ms | port open (HTTP), ms | vs ours | failed launches |', '|---|---|---|---|---:|---|---:|---:|---:|')
  for (const cell of results) {
    const ours = median(cell.runs.ours?.map((r) => r.firstAnswerMs) ?? [])
    for (const name of cell.names) {
      const first = cell.runs[name].map((r) => r.firstAnswerMs)
      const listen = cell.runs[name].map((r) => r.listeningMs)
      const m = median(first)
      md.push(`| ${cell.transport} | ${cell.size} | ${cell.generation === '2026' ? MODERN_VERSION : LEGACY_VERSION} | ${SERVERS[name].label} | **${f(m, 1)}** | ${first.length === 0 ? 'n/a' : `${f(Math.min(...first))} – ${f(Math.max(...first))}`} | ${cell.transport === 'http' ? f(median(listen), 1) : '—'} | ${m === undefined || ours === undefined ? 'n/a' : `${f(m / ours, 2)}x`} | ${cell.errors[name].length}${cell.errors[name].length > 0 ? ` (${cell.errors[name][0].replace(/\|/g, '/').slice(0, 120)})` : ''} |`)
    }
  }
  md.push('', 'What a launch includes: Node\'s own start, loading the framework, registering the catalog (ours checks every input and output schema against its meta-schema at registration and compiles it with Ajv at the tool\'s first call, docs/handlers.md; the SDKs build their zod schemas at start-up and convert them to JSON Schema when listing), binding stdio or the port, and the conversation above. Servers are the catalog servers of `npm run bench:catalog` (servers/catalog-*.js).')
  return md.join('\n')
}

await main()
process.exit(0)
