// The command line's main() in this process, on in-memory streams: for what needs no process of
// its own (help, usage errors, printed configuration), at a fraction of a child's start-up.
import { PassThrough } from 'node:stream'
import { main } from '../../src/cli/main.js'
import { createOutput } from '../../src/cli/output.js'
import type { CliRun } from './cli.js'

export interface MainOptions {
  env?: NodeJS.ProcessEnv
  cwd?: string
  home?: string
  /** Pretend both outputs are terminals. */
  tty?: boolean
}

export async function runMain (argv: readonly string[], options: MainOptions = {}): Promise<CliRun> {
  const stdout = Object.assign(new PassThrough(), { isTTY: options.tty === true })
  const stderr = Object.assign(new PassThrough(), { isTTY: options.tty === true })
  let out = ''
  let err = ''
  stdout.setEncoding('utf8').on('data', (chunk: string) => { out += chunk })
  stderr.setEncoding('utf8').on('data', (chunk: string) => { err += chunk })
  const env = options.env ?? {}
  const code = await main(argv, {
    output: createOutput(stdout, stderr, env),
    stdin: new PassThrough(),
    stdout,
    stderr,
    env,
    interrupted: new AbortController().signal,
    cwd: options.cwd ?? process.cwd(),
    home: options.home ?? '/nonexistent-home'
  })
  await new Promise((resolve) => setImmediate(resolve))
  return { code, stdout: out, stderr: err }
}
