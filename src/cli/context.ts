import type { Readable, Writable } from 'node:stream'
import { McpError } from '../jsonrpc/errors.js'
import { TransportError } from '../testing/transport-error.js'
import { ConnectFailure } from './failure.js'
import type { Output } from './output.js'

/** What every command gets: its streams, the environment, and a way to be told of Ctrl-C. */
export interface CommandContext {
  output: Output
  stdin: Readable & { isTTY?: boolean }
  stdout: Writable & { isTTY?: boolean }
  stderr: Writable & { isTTY?: boolean }
  env: NodeJS.ProcessEnv
  /** Aborted on the first Ctrl-C (SIGINT) or SIGTERM. */
  interrupted: AbortSignal
  cwd: string
  /** The user's home folder (where hosts keep their configuration). */
  home: string
}

/** A command: its help text and what it does; resolves with the exit code. */
export interface Command {
  help: string
  run: (args: string[], context: CommandContext) => Promise<number>
}

/** Exit codes: done; the tool answered `isError`; anything else (usage, protocol, credential, reachability). */
export const EXIT_OK = 0
export const EXIT_TOOL_ERROR = 1
export const EXIT_FAILURE = 2
/** Interrupted (128 + SIGINT), as shells report it. */
export const EXIT_INTERRUPTED = 130

/** Says why a command failed, in one or two lines (and the server's stderr when it died). */
export function reportFailure (error: unknown, context: CommandContext, stderrTail = ''): void {
  if (error instanceof ConnectFailure) return reportFailure(error.cause, context, error.stderrTail)
  const { output } = context
  const say = (text: string): void => { output.err(output.styleErr('red', `error: ${text}`)) }
  if (error instanceof TransportError && (error.status === 401 || error.status === 403)) {
    say(`${error.message} (check the credential given with --header)`)
    const challenge = error.headers['www-authenticate']
    if (challenge !== undefined) output.err(`  WWW-Authenticate: ${challenge}`)
  } else if (error instanceof McpError) {
    say(`${error.message} (${error.code})`)
  } else {
    say(error instanceof Error ? error.message : String(error))
  }
  const tail = stderrTail.trim()
  if (tail !== '') {
    output.err(output.styleErr('dim', 'server stderr:'))
    for (const line of tail.split('\n').slice(-20)) output.err(output.styleErr('dim', `  ${line}`))
  }
}
