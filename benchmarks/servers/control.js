// The control channel every benchmark server shares: the runner forks each server with an IPC
// channel and asks it, between workloads, for its CPU time and memory, to collect garbage, to
// broadcast, or to exit (cleanly, so that `--cpu-prof` writes its profile). None of this runs
// while a measurement is under way, except `broadcast`, which is the measured operation.
import { performance } from 'node:perf_hooks'
import { Session } from 'node:inspector/promises'
import { writeFileSync } from 'node:fs'

/**
 * @param {object} hooks
 * @param {(notification: { method: string, params?: object }) => number | Promise<number>} [hooks.broadcast]
 *   sends one notification to every connected, initialized session; returns how many it reached
 * @param {() => number} [hooks.sessions] number of open sessions
 * @param {() => Promise<void> | void} [hooks.close] graceful stop before exit
 * @param {Record<string, (message: object) => object | Promise<object>>} [hooks.commands]
 *   a server's own commands (benchmarks/routes.js asks for `inject`), each answering with its reply
 */
export function control (hooks = {}) {
  if (typeof process.send !== 'function') return // run by hand, without the runner
  let profiler
  process.on('message', async (message) => {
    if (message === null || typeof message !== 'object' || message.cmd === undefined) return
    const { id, cmd } = message
    const reply = (data) => { process.send({ id, ...data }) }
    try {
      switch (cmd) {
        case 'cpu':
          reply({ cpu: process.cpuUsage(), mem: process.memoryUsage(), sessions: hooks.sessions?.() })
          break
        case 'gc':
          // Two passes: the first may only promote what the second frees.
          globalThis.gc?.()
          globalThis.gc?.()
          reply({ mem: process.memoryUsage(), gc: typeof globalThis.gc === 'function' })
          break
        case 'broadcast': {
          const started = performance.now()
          const reached = await hooks.broadcast(message.notification)
          reply({ reached, ms: performance.now() - started })
          break
        }
        case 'profile-start':
          // Sampling only the measured window keeps start-up and session setup out of the profile.
          profiler ??= new Session()
          profiler.connect()
          await profiler.post('Profiler.enable')
          await profiler.post('Profiler.setSamplingInterval', { interval: message.intervalMicros ?? 100 })
          await profiler.post('Profiler.start')
          reply({})
          break
        case 'profile-stop': {
          const { profile } = await profiler.post('Profiler.stop')
          profiler.disconnect()
          writeFileSync(message.file, JSON.stringify(profile))
          reply({ file: message.file })
          break
        }
        case 'exit':
          reply({})
          await hooks.close?.()
          process.exit(0)
          break
        default:
          if (Object.hasOwn(hooks.commands ?? {}, cmd)) reply(await hooks.commands[cmd](message))
          else reply({ error: `unknown command ${cmd}` })
      }
    } catch (error) {
      reply({ error: String(error?.stack ?? error) })
    }
  })
  // The runner went away (crash, Ctrl-C): never outlive it.
  process.on('disconnect', () => { process.exit(0) })
}

/** Tells the runner the server is serving (HTTP servers pass their base URL). */
export function ready (info = {}) {
  if (typeof process.send === 'function') process.send({ type: 'ready', ...info })
  else process.stderr.write(`ready ${JSON.stringify(info)}\n`)
}

/** Tells the runner this server cannot run here (feature missing, build broken), then exits. */
export function unavailable (reason) {
  if (typeof process.send === 'function') {
    process.send({ type: 'unavailable', reason: String(reason) }, () => process.exit(0))
  } else {
    process.stderr.write(`unavailable: ${reason}\n`)
    process.exit(0)
  }
}

/** The auth setup the runner asks for, from BENCH_AUTH (JSON); undefined = no auth. */
export function benchAuth () {
  const raw = process.env.BENCH_AUTH
  if (raw === undefined || raw === '') return undefined
  const auth = JSON.parse(raw)
  return auth.mode === 'none' ? undefined : auth
}
