// The machine may be shared (other people's test runs): measure how much CPU everything else used
// while a benchmark ran, and wait for a quiet moment before starting one.
import { readFileSync } from 'node:fs'
import { cpus } from 'node:os'

const TICK_MICROS = 1e6 / 100 // USER_HZ is 100 on Linux

/** Busy and total CPU time of the whole machine so far, in microseconds (Linux; zeros elsewhere). */
export function machineCpu () {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').slice(0, 200).split('\n')[0].trim().split(/\s+/).slice(1).map(Number)
    const [user, nice, system, idle, iowait, irq, softirq, steal] = fields
    const busy = user + nice + system + irq + softirq + steal
    return { busy: busy * TICK_MICROS, total: (busy + idle + iowait) * TICK_MICROS }
  } catch {
    return { busy: 0, total: 0 }
  }
}

/** Cores' worth of CPU used by the whole machine over `ms`. */
export async function machineBusy (ms = 500) {
  const a = machineCpu()
  const started = performance.now()
  await new Promise((resolve) => setTimeout(resolve, ms))
  const b = machineCpu()
  return (b.busy - a.busy) / ((performance.now() - started) * 1000)
}

/**
 * Waits (up to `maxSeconds`) until the machine is quiet: less than `threshold` cores busy.
 * Returns the load seen last, in cores.
 */
export async function waitForQuiet ({ threshold = 0.3, maxSeconds = 30, log = () => {} } = {}) {
  const until = performance.now() + maxSeconds * 1000
  let load = await machineBusy()
  let told = false
  while (load > threshold && performance.now() < until) {
    if (!told) { log(`  (machine busy: ${load.toFixed(2)} of ${cpus().length} cores used by other processes; waiting up to ${maxSeconds} s)`); told = true }
    load = await machineBusy(1000)
  }
  return load
}
