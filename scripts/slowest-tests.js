// The slowest test files of the last run, so that the suite's time stays visible (npm test must stay
// within 5 minutes on 2 cores). tap leaves one result per file in .tap/test-results/, ending with
// `# time=...ms`. Usage: node scripts/slowest-tests.js [folder] [count]; without a folder, every
// file of `npm test` (all but the folders tap.yml excludes, which run apart: test/rigs/, test/cli/),
// with one, the files under it (`test/rigs`).
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const results = join(root, '.tap', 'test-results')
const [folder, count = '10'] = process.argv.slice(2)
// What tap.yml excludes from npm test: their results (from their own runs) are not this run's.
const APART = ['test/rigs/', 'test/cli/']

const inScope = (file) => folder === undefined ? !APART.some((apart) => file.startsWith(apart)) : file.startsWith(`${folder.replace(/\/$/, '')}/`)

const times = []
for (const entry of existsSync(results) ? readdirSync(results, { recursive: true, withFileTypes: true }) : []) {
  if (!entry.isFile() || !entry.name.endsWith('.tap')) continue
  const path = join(entry.parentPath, entry.name)
  const file = relative(results, path).slice(0, -'.tap'.length).split('\\').join('/')
  // A result outlives its test file (moved, deleted): only files that still exist count.
  if (!inScope(file) || !existsSync(join(root, file))) continue
  const ms = /# time=([\d.]+)ms\s*$/.exec(readFileSync(path, 'utf8'))?.[1]
  if (ms !== undefined) times.push({ file, seconds: Number(ms) / 1000 })
}

times.sort((a, b) => b.seconds - a.seconds)
const total = times.reduce((sum, { seconds }) => sum + seconds, 0)
console.log(`\nslowest test files (of ${times.length}, ${total.toFixed(0)} s of test time in all):`)
for (const { file, seconds } of times.slice(0, Number(count))) console.log(`${seconds.toFixed(1).padStart(7)} s  ${file}`)
