// The runners written after run.js (catalog.js, coldstart.js, hello.js) write their tables into
// benchmarks/RESULTS.md as sections of its hand-written tail, which `npm run bench` keeps: each
// runner replaces its own section (between `<!-- section:<id> -->` and `<!-- /section:<id> -->`)
// and leaves everything else as it was.
import { existsSync, readFileSync, writeFileSync } from 'node:fs'

export const HAND_WRITTEN = '<!-- Below: sections written by hand; npm run bench keeps them. -->'

export function writeSection (file, id, markdown) {
  const open = `<!-- section:${id} -->`
  const close = `<!-- /section:${id} -->`
  const block = `${open}\n${markdown.trim()}\n${close}`
  let text = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmark results\n'
  if (!text.includes(HAND_WRITTEN)) text = `${text.trimEnd()}\n\n${HAND_WRITTEN}\n`
  const at = text.indexOf(open)
  const end = text.indexOf(close)
  text = at >= 0 && end > at
    ? `${text.slice(0, at)}${block}${text.slice(end + close.length)}`
    : `${text.trimEnd()}\n\n${block}\n`
  writeFileSync(file, text)
}

/** The banner of figures taken while other processes kept the machine busy. */
export function loadNote (medians, threshold = 0.25) {
  const loads = Object.values(medians).map((m) => m?.otherLoad).filter((v) => typeof v === 'number')
  const worst = loads.length === 0 ? 0 : Math.max(...loads)
  return worst <= threshold
    ? undefined
    : `**Measured on a loaded machine, provisional:** other processes used up to ${worst.toFixed(2)} of the cores during these runs (median per server). Absolute figures and even ratios are unreliable; re-measure on a quiet machine with the command below.`
}

/** The machine and code lines every section starts with: where, what, and the exact command. */
export function provenance ({ machine, dist, startedAt, elapsedSec, command }) {
  return [
    `Measured ${startedAt.toISOString()} in ${elapsedSec.toFixed(0)} s with \`${command}\`.`,
    '',
    `- Machine: ${machine.cpu}, ${machine.cores} cores (client and servers share them), ${machine.memoryGiB.toFixed(1)} GiB, ${machine.os}; Node ${machine.node}`,
    `- Code: commit ${machine.commit || 'unknown'}${machine.srcChanges > 0 ? ` with ${machine.srcChanges} uncommitted change(s) under src/` : ''}, dist/ ${dist.digest} built ${dist.builtAt}`,
    `- Versions: ${Object.entries(machine.versions).map(([k, v]) => `${k} ${v}`).join(', ')}`
  ].join('\n')
}

/** The command line that reproduces a run: the BENCH_* settings given, then the script. */
export function commandLine (script) {
  const settings = Object.entries(process.env).filter(([k]) => k.startsWith('BENCH_') && k !== 'BENCH_REEXEC').map(([k, v]) => `${k}=${v}`)
  return [...settings, 'node', `benchmarks/${script}`].join(' ')
}
