#!/usr/bin/env node
// `npm run test:package`: the package as a user gets it, not as the repository holds it.
//   1. npm pack (the prepare script builds dist/); the tarball must hold dist/index.js,
//      dist/index.d.ts, LICENSE and README, nothing of tests/tools/CI, and every source map's
//      sources must be in it.
//   2. publint and @arethetypeswrong/cli on the tarball.
//   3. An empty scratch app installs the tarball (plus fastify and the official SDK client, as a
//      user would), starts an MCPServer and a plugin app from it and calls a tool through the SDK
//      client (scripts/consumer/smoke.js).
//   4. A strict NodeNext TypeScript project in that app type-checks against the installed package:
//      scripts/consumer/consumer.ts and every ts code block of README.md and docs/*.md
//      (scripts/doc-snippets.js; blocks fenced ```ts partial are skipped and counted).
//   5. The blocks fenced ```ts run (the README's testing example, a node:test file) are compiled
//      and run with node --test against the installed package.
//   6. Importing the main entry (and using it) loads nothing of dist/testing or dist/cli: every
//      module the process loads is recorded by a loader hook (scripts/consumer/loads/).
//   7. The installed bin runs: --help, and a call to a stdio server built on the package.
// Exits non-zero on the first failure; the scratch directory is removed unless KEEP_SCRATCH=1.
import { execFileSync, spawnSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, posix } from 'node:path'
import { fileURLToPath } from 'node:url'
import { docSnippets } from './doc-snippets.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const scratch = mkdtempSync(join(tmpdir(), 'mcp-package-test-'))
const npmCli = process.env.npm_execpath?.endsWith('.js') === true ? [process.execPath, process.env.npm_execpath] : ['npm']

function step (title) { console.log(`\n-- package-test: ${title}`) }
function fail (message) {
  console.error(`package-test: ${message}${process.env.KEEP_SCRATCH === '1' ? `\n(scratch kept in ${scratch})` : ''}`)
  process.exit(1)
}
function run (command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: 'inherit', ...options })
  if (result.status !== 0) fail(`${[command, ...args].join(' ')} exited with ${result.status ?? result.signal}`)
}
function npm (args, options) { run(npmCli[0], [...npmCli.slice(1), ...args], options) }
/** The version of one of our own dev dependencies, so the scratch app installs what the cache has. */
function versionOf (name) {
  return JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')).version
}

process.on('exit', () => { if (process.env.KEEP_SCRATCH !== '1') rmSync(scratch, { recursive: true, force: true }) })

step('npm pack')
const packed = JSON.parse(execFileSync(npmCli[0], [...npmCli.slice(1), 'pack', '--json', '--pack-destination', scratch], {
  cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit']
}))[0]
const tarball = join(scratch, packed.filename)
const files = new Set(packed.files.map((file) => file.path))
console.log(`${packed.filename}: ${files.size} files, ${packed.size} bytes`)
for (const required of ['package.json', 'README.md', 'LICENSE', 'dist/index.js', 'dist/index.d.ts']) {
  if (!files.has(required)) fail(`the tarball lacks ${required}`)
}
const stray = [...files].filter((file) => /^(test|tools|scripts|benchmarks|examples|\.ci|\.tap|coverage)\//.test(file))
if (stray.length > 0) fail(`the tarball ships files users do not need: ${stray.slice(0, 5).join(', ')}`)
// Source maps must resolve inside the package: the sources they name are shipped beside them.
const extracted = join(scratch, 'extracted')
mkdirSync(extracted)
run('tar', ['-xzf', tarball, '-C', extracted])
let maps = 0
for (const file of files) {
  if (!file.endsWith('.map')) continue
  maps++
  const map = JSON.parse(readFileSync(join(extracted, 'package', file), 'utf8'))
  for (const source of map.sources) {
    const resolved = posix.normalize(posix.join(posix.dirname(file), map.sourceRoot ?? '', source))
    if (!files.has(resolved)) fail(`${file} points at ${source}, which the tarball does not ship`)
  }
}
console.log(`${maps} source maps, every source shipped`)

step('publint')
npm(['exec', '--no', '--', 'publint', 'run', tarball, '--strict'], { cwd: root })

step('@arethetypeswrong/cli')
// ESM-only on purpose (Node >= 20, "type": "module"): require() of the package is not a goal.
npm(['exec', '--no', '--', 'attw', tarball, '--profile', 'esm-only'], { cwd: root })

step('scratch app: install the tarball')
const app = join(scratch, 'app')
mkdirSync(app)
writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'scratch-app', private: true, type: 'module' }, null, 2))
npm(['install', '--no-audit', '--no-fund', '--prefer-offline', tarball,
  `fastify@${versionOf('fastify')}`, `@modelcontextprotocol/sdk@${versionOf('@modelcontextprotocol/sdk')}`,
  `typescript@${versionOf('typescript')}`, `@types/node@${versionOf('@types/node')}`,
  // What the README's Observability snippet imports: an application's own OpenTelemetry SDK.
  `@opentelemetry/sdk-trace-node@${versionOf('@opentelemetry/sdk-trace-node')}`,
  `@opentelemetry/exporter-trace-otlp-http@${versionOf('@opentelemetry/exporter-trace-otlp-http')}`], { cwd: app })

step('scratch app: an MCPServer and a plugin app answer the SDK client')
cpSync(join(root, 'scripts', 'consumer'), app, { recursive: true })
run(process.execPath, ['smoke.js'], { cwd: app, timeout: 60_000 })

step('scratch app: strict NodeNext type-check of consumer.ts and the documentation snippets')
const snippets = docSnippets(root)
const compiled = snippets.filter((snippet) => !snippet.partial)
mkdirSync(join(app, 'snippets'))
for (const snippet of compiled) {
  const name = `${snippet.file.replace(/[/.]/g, '_')}_${snippet.line}.ts`
  // The header makes tsc's messages point back at the documentation line.
  writeFileSync(join(app, 'snippets', name), `// ${snippet.file}:${snippet.line}\n${snippet.code}\nexport {}\n`)
}
console.log(`${compiled.length} documentation snippets compiled, ${snippets.length - compiled.length} marked partial: ` +
  snippets.map((s) => `${s.file}:${s.line}${s.partial ? ' (partial)' : ''}`).join(', '))
if (compiled.length === 0) fail('no documentation snippet found to compile')
const tsc = join(app, 'node_modules', 'typescript', 'bin', 'tsc')
run(process.execPath, [tsc, '-p', join(app, 'tsconfig.json')], { cwd: app })

step('scratch app: the runnable documentation examples, compiled and run with node --test')
const runnable = compiled.filter((snippet) => snippet.run)
if (runnable.length === 0) fail('no ```ts run block found: the README\'s testing example must be one')
for (const snippet of runnable) {
  const name = `${snippet.file.replace(/[/.]/g, '_')}_${snippet.line}`
  run(process.execPath, [tsc, '--outDir', join(app, 'run'), '--rootDir', join(app, 'snippets'), '--module', 'NodeNext', '--moduleResolution', 'NodeNext',
    '--target', 'ES2022', '--types', 'node', '--skipLibCheck', join(app, 'snippets', `${name}.ts`)], { cwd: app })
  run(process.execPath, ['--test', join(app, 'run', `${name}.js`)], { cwd: app, timeout: 60_000 })
  console.log(`${snippet.file}:${snippet.line} passed under node --test`)
}

step('scratch app: the main entry loads no testing or CLI code')
/** Every file URL of the package a script loads, as the loader hook recorded it. */
function loadedBy (script) {
  const log = join(app, 'loaded.log')
  rmSync(log, { force: true })
  run(process.execPath, ['--import', './loads/record.mjs', script], { cwd: app, env: { ...process.env, LOADED_LOG: log }, timeout: 60_000 })
  return readFileSync(log, 'utf8').split('\n').filter((url) => url.includes('/node_modules/fastify-mcp-server/'))
}
const main = loadedBy('loads/main-entry.mjs')
if (!main.some((url) => url.endsWith('/fastify-mcp-server/dist/index.js'))) fail('the loader hook did not see the main entry load: the check proves nothing')
const tooMuch = main.filter((url) => /\/fastify-mcp-server\/dist\/(testing|cli)\//.test(url))
if (tooMuch.length > 0) fail(`the main entry loaded ${tooMuch.join(', ')}`)
const testing = loadedBy('loads/testing-entry.mjs')
if (!testing.some((url) => url.includes('/fastify-mcp-server/dist/testing/'))) fail('the loader hook did not see the testing entry load: the check proves nothing')
console.log(`main entry: ${main.length} modules of the package, none of dist/testing or dist/cli (the testing entry: ${testing.length})`)

step('scratch app: the bin')
const bin = join(app, 'node_modules', '.bin', 'fastify-mcp-server')
const help = spawnSync(bin, ['--help'], { cwd: app, encoding: 'utf8' })
if (help.status !== 0 || !help.stdout.startsWith('Usage: fastify-mcp-server <command>')) fail(`fastify-mcp-server --help: ${help.status}\n${help.stdout}${help.stderr}`)
const called = spawnSync(bin, ['call', 'loads/stdio-server.mjs', 'add', 'a=1', 'b=2'], { cwd: app, encoding: 'utf8', timeout: 60_000 })
if (called.status !== 0 || called.stdout !== '3\n') fail(`fastify-mcp-server call: ${called.status}\n${called.stdout}${called.stderr}`)
console.log('fastify-mcp-server --help and call answer')

console.log('\npackage-test: passed')
