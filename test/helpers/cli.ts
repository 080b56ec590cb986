// The command line as users run it: a child process of its own, with the test's node arguments
// (TypeScript loader, coverage) passed on so that src/cli runs from the TypeScript sources (and
// counts towards coverage).
import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'

export const CLI = fileURLToPath(new URL('../../src/cli/index.ts', import.meta.url))
export const DEMO = fileURLToPath(new URL('../../examples/demo-server.js', import.meta.url))

export interface CliRun {
  code: number | null
  stdout: string
  stderr: string
}

export interface CliOptions {
  /** Written to the CLI's stdin, which is then ended (default: ended at once). */
  input?: string
  env?: NodeJS.ProcessEnv
  cwd?: string
  /** The run is killed past this (default 60 s). */
  timeoutMs?: number
}

/** Starts the CLI; the caller reads its output and ends it. */
export function startCli (args: readonly string[], options: Omit<CliOptions, 'input' | 'timeoutMs'> = {}): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [...process.execArgv, CLI, ...args], {
    cwd: options.cwd,
    env: { ...process.env, NO_COLOR: '1', ...options.env },
    stdio: ['pipe', 'pipe', 'pipe']
  })
}

/** Runs the CLI to its end: exit code, stdout, stderr. */
export async function runCli (args: readonly string[], options: CliOptions = {}): Promise<CliRun> {
  const child = startCli(args, options)
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
  child.stdin.end(options.input ?? '')
  const timer = setTimeout(() => { child.kill('SIGKILL') }, options.timeoutMs ?? 60_000)
  const [code] = await once(child, 'close') as [number | null]
  clearTimeout(timer)
  return { code, stdout, stderr }
}

/** Resolves with the output so far once `pattern` shows in it; rejects past the deadline (or when the process ends first). */
export async function waitForOutput (child: ChildProcess, stream: 'stdout' | 'stderr', pattern: RegExp, timeoutMs = 30_000): Promise<string> {
  const output = child[stream]
  if (output === null) throw new Error(`${stream} is not a pipe`)
  let seen = ''
  return await new Promise((resolve, reject) => {
    const timer = setTimeout(() => { done(new Error(`no ${String(pattern)} on ${stream} within ${timeoutMs} ms; got:\n${seen}`)) }, timeoutMs)
    const onData = (chunk: Buffer | string): void => {
      seen += chunk.toString()
      if (pattern.test(seen)) done(undefined)
    }
    const onClose = (): void => { done(new Error(`the process ended before ${String(pattern)} on ${stream}; got:\n${seen}`)) }
    const done = (error: Error | undefined): void => {
      clearTimeout(timer)
      output.off('data', onData)
      child.off('close', onClose)
      if (error === undefined) resolve(seen)
      else reject(error)
    }
    output.on('data', onData)
    child.once('close', onClose)
  })
}
