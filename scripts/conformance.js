#!/usr/bin/env node
// `npm run conformance`: runs the official MCP conformance suite against examples/conformance-server.js.
// Starts the server (built dist/, this Node) on a free loopback port, runs
// `conformance server --url http://localhost:<port>/mcp --suite all` under Node 22 (the suite needs it:
// the `node` package of tools/, installed here on first use), stops the server, then reads every
// scenario's checks.json. Exits non-zero on any failed or warned check, on a scenario without results
// or without a single check, when no scenario was listed at all (a changed listing format must not
// pass vacuously), or when the suite itself fails: the suite's own exit code counts only failures,
// and warnings are just as much a defect for us.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ensureTools } from './tools.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const node22 = join(root, 'tools', 'node_modules', 'node', 'bin', 'node')
const suitePackage = join(root, 'tools', 'node_modules', '@modelcontextprotocol', 'conformance')
const SERVER_START_MS = 15_000
const SUITE_TIMEOUT_MS = 10 * 60_000

function fail (message) {
  console.error(`conformance: ${message}`)
  process.exit(1)
}

ensureTools()
if (!existsSync(node22)) fail(`Node 22 not found at ${node22} after installing tools/`)
if (!existsSync(join(suitePackage, 'package.json'))) fail('@modelcontextprotocol/conformance is not installed in tools/')
const suiteBin = join(suitePackage, JSON.parse(readFileSync(join(suitePackage, 'package.json'), 'utf8')).bin.conformance)

/** The server scenarios the installed suite knows, so a scenario that silently produced nothing is noticed. */
function listScenarios () {
  const listed = spawnSync(node22, [suiteBin, 'list', '--server'], { encoding: 'utf8' })
  if (listed.status !== 0) fail(`could not list the suite's scenarios:\n${listed.stderr}`)
  const scenarios = [...listed.stdout.matchAll(/^\s+- (\S+)/gm)].map((match) => match[1])
  if (scenarios.length === 0) fail(`no scenario parsed from the suite's listing (did its format change?):\n${listed.stdout}`)
  return scenarios
}

/** Starts the example server and resolves with its base URL once it prints "listening <url>". */
function startServer () {
  const child = spawn(process.execPath, [join(root, 'examples', 'conformance-server.js'), '--port', '0', '--host', '127.0.0.1'], {
    stdio: ['ignore', 'pipe', 'inherit']
  })
  const url = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the server did not start in time')), SERVER_START_MS)
    let output = ''
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (chunk) => {
      output += chunk
      const match = /^listening (\S+)$/m.exec(output)
      if (match !== null) {
        clearTimeout(timer)
        resolve(match[1])
      }
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`the server exited early (code ${code})`))
    })
  })
  return { child, url }
}

async function stopServer (child) {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000)
  await exited
  clearTimeout(timer)
}

function runSuite (url, outputDir) {
  return new Promise((resolve) => {
    const suite = spawn(node22, [suiteBin, 'server', '--url', url, '--suite', 'all', '-o', outputDir], { stdio: 'inherit' })
    const timer = setTimeout(() => suite.kill('SIGKILL'), SUITE_TIMEOUT_MS)
    suite.once('exit', (code, signal) => {
      clearTimeout(timer)
      resolve(signal === null ? code : 1)
    })
  })
}

/** Per scenario: its checks' statuses, read from `<outputDir>/server-<scenario>-<timestamp>/checks.json`. */
function readResults (scenarios, outputDir) {
  const dirs = readdirSync(outputDir)
  return scenarios.map((scenario) => {
    // The timestamp check keeps a scenario from taking the results of another whose name extends it.
    const dir = dirs.find((name) => name.startsWith(`server-${scenario}-`) && /^\d{4}-/.test(name.slice(`server-${scenario}-`.length)))
    if (dir === undefined) return { scenario, checks: undefined }
    return { scenario, checks: JSON.parse(readFileSync(join(outputDir, dir, 'checks.json'), 'utf8')) }
  })
}

const scenarios = listScenarios()
const outputDir = mkdtempSync(join(tmpdir(), 'mcp-conformance-'))
const server = startServer()
let suiteCode
try {
  const base = await server.url
  // The suite insists on a localhost URL (its DNS-rebinding scenario sends Host: localhost:<port>).
  const url = `http://localhost:${new URL(base).port}/mcp`
  console.log(`conformance: ${scenarios.length} server scenarios against ${url}`)
  suiteCode = await runSuite(url, outputDir)
} catch (error) {
  await stopServer(server.child)
  fail(error.message)
}
await stopServer(server.child)

const results = readResults(scenarios, outputDir)
let passed = 0
let failures = 0
let warnings = 0
const problems = []
for (const { scenario, checks } of results) {
  if (checks === undefined) {
    problems.push(`${scenario}: no results`)
    failures++
    continue
  }
  if (!Array.isArray(checks) || checks.length === 0) {
    problems.push(`${scenario}: no checks recorded`)
    failures++
    continue
  }
  const bad = checks.filter((check) => check.status === 'FAILURE' || check.status === 'WARNING')
  for (const check of bad) {
    if (check.status === 'FAILURE') failures++
    else warnings++
    problems.push(`${scenario}: ${check.status} ${check.id}: ${check.errorMessage ?? check.description ?? ''}`)
  }
  if (bad.length === 0) passed++
}

if (problems.length > 0) console.error(`\nconformance problems:\n  ${problems.join('\n  ')}\n(results kept in ${outputDir})`)
else rmSync(outputDir, { recursive: true, force: true })
if (suiteCode !== 0) console.error(`conformance: the suite exited with status ${suiteCode}`)
console.log(`conformance: ${passed}/${scenarios.length} scenarios passed, ${failures} failures, ${warnings} warnings`)
process.exit(suiteCode === 0 && problems.length === 0 && passed === scenarios.length ? 0 : 1)
