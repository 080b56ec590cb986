// An MCP instance as a child process (a fixture under test/fixtures/, plain JS against dist/), for
// the tests that kill one: the process, its port, and the JSON lines it prints.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import type { Test } from 'tap'

export interface InstanceProcess {
  readonly id: string
  readonly port: number
  readonly url: string
  readonly child: ChildProcess
  /** Every JSON line printed after `{"port":N}`, in order (what the instance reports). */
  readonly lines: Array<Record<string, unknown>>
  /** SIGKILL, then waits until the process is gone. */
  kill: () => Promise<void>
}

/** Starts `node fixture ...args` (the instance id is `args[1]`), killed at teardown if still running. */
export async function startInstanceProcess (t: Test, fixture: string, args: string[]): Promise<InstanceProcess> {
  const id = args[1] ?? ''
  const child = spawn(process.execPath, [fixture, ...args], { stdio: ['ignore', 'pipe', 'inherit'] })
  const kill = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return
    child.kill('SIGKILL')
    await once(child, 'exit')
  }
  t.teardown(kill)
  const lines: Array<Record<string, unknown>> = []
  const port = await listening(child, id, lines)
  return { id, port, url: `http://127.0.0.1:${port}`, child, lines, kill }
}

/**
 * Resolves with the port an instance prints as `{"port":N}` on stdout; the JSON lines it prints
 * after that are pushed to `lines` (other output is ignored). Rejects if it exits before.
 */
export async function listening (child: ChildProcess, id: string, lines: Array<Record<string, unknown>>): Promise<number> {
  if (child.stdout === null) throw new Error(`instance ${id}: its stdout is not piped`)
  const input = createInterface({ input: child.stdout })
  return await new Promise<number>((resolve, reject) => {
    input.on('line', (line) => {
      let parsed: Record<string, unknown>
      try {
        parsed = JSON.parse(line) as Record<string, unknown>
      } catch {
        return
      }
      if (typeof parsed.port === 'number') resolve(parsed.port)
      else lines.push(parsed)
    })
    input.once('close', () => { reject(new Error(`instance ${id} exited before listening`)) })
  })
}
