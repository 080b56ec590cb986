#!/usr/bin/env node
// ab-dispatch.js in both orders, as one answer. The build a process loads first shows ~2 % more
// CPU whatever it is (a byte-identical copy against itself gives 1.018 both ways), so one order
// alone cannot resolve a few per cent. This runs A-first and B-first `runs` times each, in
// alternation, each in its own process, and reports B's CPU per call relative to A's with that
// bias cancelled: the geometric mean over all runs of (B / A when A loads first) and the inverse
// of (A / B when B loads first).
//
//   node benchmarks/ab-both.js <A>/dist/index.js <B>/dist/index.js [runs=3] [pairs=100] [batch=10000]
//   AB_GENERATION=2026 node benchmarks/ab-both.js ...   the same with 2026-07-28 calls (see ab-dispatch.js)
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const [pathA, pathB, runsArg = '3', pairs = '100', batch = '10000'] = process.argv.slice(2)
if (pathA === undefined || pathB === undefined) {
  process.stderr.write('usage: node benchmarks/ab-both.js <A dist/index.js> <B dist/index.js> [runs] [pairs] [batch]\n')
  process.exit(2)
}
const script = fileURLToPath(new URL('./ab-dispatch.js', import.meta.url))

/** First / second, as ab-dispatch prints it ("A / B: 1.012 ..."), after checking every answer was right. */
function ratio (first, second) {
  const out = execFileSync(process.execPath, ['--expose-gc', script, first, second, pairs, batch], { encoding: 'utf8' })
  if (!/^wrong answers: A 0, B 0$/m.test(out)) throw new Error(`wrong answers:\n${out}`)
  const found = /^A \/ B: ([\d.]+)/m.exec(out)
  if (found === null) throw new Error(`no ratio in:\n${out}`)
  return Number(found[1])
}

const bOverA = []
for (let run = 0; run < Number(runsArg); run++) {
  const aFirst = 1 / ratio(pathA, pathB)
  const bFirst = ratio(pathB, pathA)
  process.stdout.write(`run ${run + 1}: B / A ${aFirst.toFixed(3)} (A loaded first), ${bFirst.toFixed(3)} (B loaded first)\n`)
  bOverA.push(aFirst, bFirst)
}
const geometric = Math.exp(bOverA.reduce((sum, r) => sum + Math.log(r), 0) / bOverA.length)
process.stdout.write(`B / A, CPU per call, load order cancelled: ${geometric.toFixed(3)} (${bOverA.length} runs of ${pairs} x ${batch})\n`)
