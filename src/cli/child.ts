import { spawn, type ChildProcess } from 'node:child_process'
import type { Inbound } from '../testing/channel.js'
import { lineChannel, type MultiplexChannel } from '../testing/multiplex.js'

/** How much of a server's stderr is kept, to show when it fails. */
const TAIL_BYTES = 8192

export interface ServerProcessOptions {
  /** Copy the server's stderr (its log) to ours as it comes, instead of only when it fails. */
  verbose: boolean
  /** Where the server's stderr goes when copied. */
  stderr: NodeJS.WritableStream
  /** Told when the server prints something other than protocol on stdout. */
  onNoise?: (line: string) => void
}

export interface ServerProcess {
  channel: MultiplexChannel
  child: ChildProcess
  /** The end of what the server wrote on stderr. */
  stderrTail: () => string
}

/**
 * Runs a server as a child process and talks to it over its stdin and stdout, as an MCP host
 * does. On POSIX it gets a process group of its own, so that a terminal's Ctrl-C reaches only us
 * and becomes a cancellation, not the server's death. Closing ends its stdin, then waits for it to
 * exit (SIGTERM after 2 s, SIGKILL after 2 s more).
 */
export function spawnServer (command: string, args: readonly string[], inbound: Inbound, options: ServerProcessOptions): ServerProcess {
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], detached: process.platform !== 'win32', env: process.env })
  let tail = ''
  child.stderr.setEncoding('utf8')
  child.stderr.on('data', (chunk: string) => {
    if (options.verbose) options.stderr.write(chunk)
    tail = (tail + chunk).slice(-TAIL_BYTES)
  })
  const exited = new Promise<void>((resolve) => {
    child.once('close', () => { resolve() })
    child.once('error', () => { resolve() })
  })
  const channel = lineChannel(child.stdout, child.stdin, inbound, {
    onNoise: options.onNoise,
    endsWithOutput: false,
    release: async () => {
      child.stdin.end()
      if (await within(exited, 2000)) return
      child.kill('SIGTERM')
      if (await within(exited, 2000)) return
      child.kill('SIGKILL')
      await exited
    }
  })
  // 'close' comes after the exit and the end of its output: the one moment that knows how it ended.
  child.once('close', (code, signal) => {
    channel.ended(`The server ${code === null ? `was killed by ${String(signal)}` : `exited with code ${code}`}`)
  })
  child.once('error', (error) => { channel.ended(`Could not start ${command}: ${error.message}`) })
  return { channel, child, stderrTail: () => tail }
}

async function within (promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<boolean>((resolve) => { timer = setTimeout(() => { resolve(false) }, ms) })
  try {
    return await Promise.race([promise.then(() => true), timeout])
  } finally {
    clearTimeout(timer)
  }
}
