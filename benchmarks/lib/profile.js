// Summarizes a V8 .cpuprofile (from `node --cpu-prof`): top functions by self time, and self
// time by package. `node benchmarks/lib/profile.js <file.cpuprofile> [top]` prints it.
import { readFileSync } from 'node:fs'
import { basename } from 'node:path'
import { fileURLToPath } from 'node:url'

export function summarize (file, top = 20) {
  const profile = JSON.parse(readFileSync(file, 'utf8'))
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  // Samples taken inside the profiler's own inspector calls (Profiler.stop serializing the profile)
  // are the measurement, not the server: drop them.
  const parent = new Map()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  const inProfiler = new Map()
  const isProfiler = (id) => {
    if (inProfiler.has(id)) return inProfiler.get(id)
    const node = byId.get(id)
    const up = parent.get(id)
    const result = node.callFrame.url === 'node:inspector' || (up !== undefined && isProfiler(up))
    inProfiler.set(id, result)
    return result
  }
  const self = new Map()
  let total = 0
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i] ?? 0
    const id = profile.samples[i]
    self.set(id, (self.get(id) ?? 0) + dt)
    total += dt
  }
  const functions = new Map()
  const packages = new Map()
  let profilerMicros = 0
  for (const [id, micros] of self) {
    if (isProfiler(id)) { profilerMicros += micros; continue }
    const { callFrame } = byId.get(id)
    const where = location(callFrame)
    const name = callFrame.functionName === '' ? '(anonymous)' : callFrame.functionName
    const key = `${name} ${where}`
    const entry = functions.get(key) ?? { name, where, micros: 0 }
    entry.micros += micros
    functions.set(key, entry)
    const pkg = packageOf(callFrame)
    packages.set(pkg, (packages.get(pkg) ?? 0) + micros)
  }
  const idle = [...functions.values()].filter((f) => f.name === '(idle)').reduce((sum, f) => sum + f.micros, 0)
  const busy = total - idle - profilerMicros
  const rows = [...functions.values()].filter((f) => f.name !== '(idle)')
    .sort((a, b) => b.micros - a.micros).slice(0, top)
    .map((f) => ({ ...f, pctBusy: (100 * f.micros) / busy }))
  const pkgs = [...packages.entries()].filter(([name]) => name !== '(idle)').sort((a, b) => b[1] - a[1])
    .map(([name, micros]) => ({ name, micros, pctBusy: (100 * micros) / busy }))
  return { file: basename(file), totalMs: total / 1000, busyMs: busy / 1000, top: rows, packages: pkgs }
}

function location ({ url, lineNumber }) {
  if (url === '') return ''
  const short = url.replace(/^file:\/\//, '').replace(/^.*\/node_modules\//, '').replace(/^.*\/(dist|benchmarks)\//, '$1/')
  return `${short}:${lineNumber + 1}`
}

function packageOf ({ url, functionName }) {
  if (functionName === '(idle)') return '(idle)'
  if (functionName === '(garbage collector)') return '(gc)'
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)'
  if (url.startsWith('node:')) return 'node: core'
  const match = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)
  if (match) return match[1]
  if (url.includes('/dist/')) return 'fastify-mcp-server (dist)'
  if (url.includes('/benchmarks/')) return 'benchmark server script'
  return url
}

export function formatSummary (summary) {
  const lines = [`${summary.file}: ${summary.busyMs.toFixed(0)} ms busy of ${summary.totalMs.toFixed(0)} ms sampled`, '', '| self % | self ms | function | where |', '|---:|---:|---|---|']
  for (const row of summary.top) lines.push(`| ${row.pctBusy.toFixed(1)} | ${(row.micros / 1000).toFixed(1)} | \`${row.name}\` | ${row.where} |`)
  lines.push('', '| package | self % |', '|---|---:|')
  for (const pkg of summary.packages.slice(0, 12)) lines.push(`| ${pkg.name} | ${pkg.pctBusy.toFixed(1)} |`)
  return lines.join('\n')
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, top] = process.argv.slice(2)
  if (file === undefined) {
    console.error('usage: node benchmarks/lib/profile.js <file.cpuprofile> [top]')
    process.exit(1)
  }
  console.log(formatSummary(summarize(file, Number(top ?? 25))))
}
