#!/usr/bin/env node
// tools/ holds what needs Node >= 22 (its own `node` package, the MCP conformance suite, the MCP
// Inspector CLI): ~270 packages and ~330 MB that only `npm run conformance` and one optional test
// use. So `npm ci` of the project does not install it; the first command that needs it does
// (`npm run tools`, or `ensureTools()` from scripts/conformance.js), and again whenever
// tools/package.json or tools/package-lock.json changed since, e.g. when a suite version is added.
//   node scripts/tools.js          installs tools/ when missing or stale, else does nothing
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const tools = fileURLToPath(new URL('../tools', import.meta.url))
// Written after a successful install: the digest of the manifest and lockfile it installed from.
const stamp = join(tools, 'node_modules', '.installed-from')

function manifestDigest () {
  const hash = createHash('sha256')
  for (const file of ['package.json', 'package-lock.json']) hash.update(readFileSync(join(tools, file)))
  return hash.digest('hex')
}

/** Installs tools/ (npm ci) unless what is installed came from the current manifest and lockfile. */
export function ensureTools () {
  const digest = manifestDigest()
  if (existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === digest) return
  console.error('tools: installing tools/ (Node 22, the conformance suite, the MCP Inspector CLI) on first use')
  // npm's own CLI under the running Node: `npm` on PATH may be a shim, and a shell is not needed.
  const npm = process.env.npm_execpath
  const [command, args] = npm !== undefined && npm.endsWith('.js')
    ? [process.execPath, [npm]]
    : ['npm', []]
  const installed = spawnSync(command, [...args, 'ci', '--prefix', tools, '--no-audit', '--no-fund'], { stdio: 'inherit' })
  if (installed.status !== 0) {
    console.error(`tools: npm ci --prefix tools failed (status ${installed.status ?? installed.signal})`)
    process.exit(1)
  }
  writeFileSync(stamp, `${digest}\n`)
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) ensureTools()
