// Benchmark servers run as child processes of the runner, each with an IPC channel (see
// servers/control.js) so that the runner can read the server's own CPU time and memory.
import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'

const SERVERS_DIR = fileURLToPath(new URL('../servers/', import.meta.url))
const live = new Set()

export class ServerUnavailable extends Error {}

/**
 * Starts `servers/<script>` and resolves once it reports ready.
 * @param {string} script file name under servers/
 * @param {{ env?: object, stdio?: boolean, profileDir?: string, profileName?: string, startTimeoutMs?: number }} options
 */
export async function startServer (script, options = {}) {
  const execArgv = ['--expose-gc']
  const child = fork(join(SERVERS_DIR, script), [], {
    execArgv,
    env: { ...process.env, ...options.env },
    // stdio servers talk protocol on stdin/stdout; HTTP servers keep them for diagnostics.
    stdio: ['pipe', 'pipe', 'pipe', 'ipc'],
    serialization: 'json'
  })
  live.add(child)
  const handle = new ServerHandle(script, child)
  let stderr = ''
  child.stderr.setEncoding('utf8')
  child.stderr.on('data', (chunk) => {
    if (stderr.length < 20000) stderr += chunk
    if (process.env.BENCH_VERBOSE === '1') process.stderr.write(`[${script}] ${chunk}`)
  })
  handle.stderr = () => stderr
  if (!options.stdio) child.stdout.resume()
  const info = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup()
      reject(new ServerUnavailable(`${script} did not start within ${options.startTimeoutMs ?? 20000} ms\n${stderr}`))
    }, options.startTimeoutMs ?? 20000)
    const onMessage = (message) => {
      if (message?.type === 'ready') { cleanup(); resolve(message) }
      if (message?.type === 'unavailable') { cleanup(); reject(new ServerUnavailable(message.reason)) }
    }
    const onExit = (code, signal) => {
      cleanup()
      reject(new ServerUnavailable(`${script} exited (${code ?? signal}) before it was ready: ${stderr.trim().split('\n').slice(-5).join(' | ')}`))
    }
    const cleanup = () => {
      clearTimeout(timer)
      child.off('message', onMessage)
      child.off('exit', onExit)
    }
    child.on('message', onMessage)
    child.on('exit', onExit)
  }).catch(async (error) => {
    await handle.kill()
    throw error
  })
  handle.url = info.url
  handle.profilePrefix = options.profileDir === undefined ? undefined : join(options.profileDir, options.profileName)
  return handle
}

class ServerHandle {
  constructor (name, child) {
    this.name = name
    this.child = child
    this.nextId = 1
    this.waiting = new Map()
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => {
      live.delete(child)
      for (const { reject } of this.waiting.values()) reject(new Error(`${name} exited (${code ?? signal})`))
      this.waiting.clear()
      resolve({ code, signal })
    }))
    child.on('message', (message) => {
      const pending = message?.id === undefined ? undefined : this.waiting.get(message.id)
      if (pending === undefined) return
      this.waiting.delete(message.id)
      if (message.error !== undefined) pending.reject(new Error(message.error))
      else pending.resolve(message)
    })
  }

  /** Sends one control command and resolves with the server's reply. */
  command (cmd, payload = {}, timeoutMs = 60000) {
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id)
        reject(new Error(`${this.name}: no answer to ${cmd} within ${timeoutMs} ms`))
      }, timeoutMs)
      this.waiting.set(id, {
        resolve: (value) => { clearTimeout(timer); resolve(value) },
        reject: (error) => { clearTimeout(timer); reject(error) }
      })
      this.child.send({ id, cmd, ...payload })
    })
  }

  /** CPU time (user + system) of the server process so far, in microseconds, and its memory. */
  async usage () {
    const { cpu, mem, sessions } = await this.command('cpu')
    return { cpuMicros: cpu.user + cpu.system, user: cpu.user, system: cpu.system, mem, sessions }
  }

  /**
   * Marks the start of a measured window: when this server is being profiled, starts the
   * sampling profiler (the clients call this right before their measured windows).
   */
  async windowStart () {
    if (this.profilePrefix === undefined) return
    await this.command('profile-start')
  }

  /** Ends the window: writes `<profileDir>/<profileName>-<label>.cpuprofile` when profiling. */
  async windowEnd (label) {
    if (this.profilePrefix === undefined) return
    await this.command('profile-stop', { file: `${this.profilePrefix}-${label}.cpuprofile` })
  }

  /** Full garbage collection, then memory usage. */
  async gcMemory () {
    return (await this.command('gc')).mem
  }

  /** Asks for a clean exit (so a CPU profile is written); kills after a grace period. */
  async stop (graceMs = 5000) {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return
    try {
      this.child.stdin?.end()
      await Promise.race([this.command('exit', {}, graceMs), this.exited])
    } catch {}
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs)
    await this.exited
    clearTimeout(timer)
  }

  async kill () {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL')
    await this.exited
  }
}

/** Every server still running: killed by the runner on exit, whatever happened. */
export function killAll () {
  for (const child of live) {
    try { child.kill('SIGKILL') } catch {}
  }
}
