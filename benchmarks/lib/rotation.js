// The measuring discipline of run.js, for the runners written after it (catalog.js, hello.js):
// each server in a fresh process per run, servers alternating in rotating order from run to run,
// a wait for a quiet machine before each run (within a budget), the CPU other processes used
// meanwhile recorded, every child stopped, and the median of each figure over the runs.
import { performance } from 'node:perf_hooks'
import { machineCpu, waitForQuiet } from './load.js'
import { ServerUnavailable } from './proc.js'
import { medianOf } from './stats.js'

/**
 * Runs every entry `runs` times. An entry is `{ name, start: () => Promise<ServerHandle>,
 * measure: (server) => Promise<object> }`; `measure` resolves with the run's figures. Resolves
 * with `{ runs: { name: [figures] }, median: { name: figures }, unavailable, errors }`.
 */
export async function rotate (entries, { runs, quiet, log, timeoutMs = 300_000 }) {
  const out = { runs: {}, median: {}, unavailable: {}, errors: {} }
  for (const { name } of entries) out.runs[name] = []
  for (let run = 0; run < runs; run++) {
    const order = entries.map((_, i) => entries[(i + run) % entries.length])
    for (const entry of order) {
      if (out.unavailable[entry.name] !== undefined) continue
      const result = await runOnce(entry, { quiet, timeoutMs, log })
      if (result.unavailable !== undefined) {
        out.unavailable[entry.name] = result.unavailable
        log(`  ${entry.name}: not available: ${result.unavailable}`)
      } else if (result.error !== undefined) {
        ;(out.errors[entry.name] ??= []).push(result.error)
        log(`  ${entry.name} run ${run + 1}: failed: ${result.error}`)
      } else {
        out.runs[entry.name].push(result.value)
        log(`  ${entry.name} run ${run + 1}: ${entry.describe?.(result.value) ?? JSON.stringify(result.value)}`)
      }
    }
  }
  for (const { name } of entries) if (out.runs[name].length > 0) out.median[name] = medianOf(out.runs[name])
  return out
}

/** The quiet-machine wait, with one budget for a whole invocation. */
export function quietGate ({ waitSeconds, budgetSeconds }) {
  let left = budgetSeconds
  return async (log) => {
    const started = performance.now()
    const load = await waitForQuiet({ maxSeconds: Math.min(waitSeconds, left), log })
    left = Math.max(0, left - (performance.now() - started) / 1000)
    return load
  }
}

async function runOnce (entry, { quiet, timeoutMs, log }) {
  const loadBefore = await quiet(log)
  let server
  try {
    server = await entry.start()
  } catch (error) {
    if (error instanceof ServerUnavailable) return { unavailable: error.message.split('\n')[0] }
    return { error: error.message }
  }
  let timer
  try {
    const machine0 = machineCpu()
    const server0 = await server.usage()
    const runner0 = process.cpuUsage()
    const wall0 = performance.now()
    const value = await Promise.race([
      entry.measure(server),
      new Promise((resolve, reject) => { timer = setTimeout(() => reject(new Error(`gave up after ${timeoutMs / 1000} s`)), timeoutMs) })
    ])
    const server1 = await server.usage()
    const runner1 = process.cpuUsage(runner0)
    const others = machineCpu().busy - machine0.busy - (server1.cpuMicros - server0.cpuMicros) - (runner1.user + runner1.system)
    value.otherLoad = Math.max(0, others / ((performance.now() - wall0) * 1000))
    value.loadBefore = loadBefore
    return { value }
  } catch (error) {
    const stderr = server.stderr?.() ?? ''
    return { error: `${error.message}${stderr ? ` | stderr: ${stderr.trim().split('\n').slice(-3).join(' / ')}` : ''}` }
  } finally {
    clearTimeout(timer)
    await server.stop()
  }
}
