// A stdio fixture server (test/fixtures/stdio-*.ts) as a real child process, driven raw: for what the
// SDK client hides (the exact lines, the order of notifications and answers, the exit). It runs
// with the test's node arguments (TypeScript loader and coverage), so its src/ counts.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import type { Test } from 'tap'
import { fixture } from './clients.js'
import { readJsonLines, type JsonLines } from './json-lines.js'

export interface StdioChild extends JsonLines {
  readonly process: ChildProcessWithoutNullStreams
  /** Writes `message` as one line on its stdin. */
  send: (message: unknown) => void
  /** Sends a request and takes its answer. */
  call: (message: Record<string, unknown>) => Promise<any>
  /** Everything it wrote on stderr so far. */
  stderr: () => string
  /** Its exit code, once it exited. */
  readonly exited: Promise<number | null>
}

/** Spawns `node <the test's node arguments> test/fixtures/<name>`, killed at teardown. */
export function spawnStdioFixture (t: Test, name: string, env: Record<string, string> = {}): StdioChild {
  const child = spawn(process.execPath, [...process.execArgv, fixture(name)], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] })
  t.teardown(() => { child.kill() })
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  let stderr = ''
  child.stderr.setEncoding('utf8')
  child.stderr.on('data', (chunk: string) => { stderr += chunk })
  const lines = readJsonLines(child.stdout)
  const send = (message: unknown): void => { child.stdin.write(JSON.stringify(message) + '\n') }
  return {
    ...lines,
    process: child,
    send,
    call: async (message) => {
      send(message)
      return (await lines.answer(message.id)).response
    },
    stderr: () => stderr,
    exited
  }
}
