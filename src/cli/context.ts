import type { Readable, Writable } from 'node:stream'
import { McpError } from '../jsonrpc/errors.js'
import { TransportError } from '../testing/transport-error.js'
import { headersOf, protocolOf, secondsOf, type Target } from './args.js'
import { connect, ConnectFailure, type Connected, type ConnectOptions } from './connect.js'
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

/** The connection flags shared by the commands that talk to a server. */
export const CONNECTION_FLAGS = {
  header: { type: 'string', multiple: true },
  protocol: { type: 'string' },
  timeout: { type: 'string' },
  verbose: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false }
} as const

export const CONNECTION_HELP = `Target:
  <file>                a server file, run as a child process over stdio (node <file>; node
                        flags, such as a TypeScript loader, go in NODE_OPTIONS)
  http(s)://...         a URL: Streamable HTTP, falling back to an initialize session, then HTTP+SSE
  -- <command ...>      instead of a target, at the very end: any command, over stdio

Connection:
  --header 'Name: value'  sent with every HTTP request (repeatable): credentials
  --protocol <version>    2026-07-28, 2025-11-25 or auto (default: 2026-07-28 when the server
                          speaks it, else 2025-11-25)
  --timeout <seconds>     longest wait for each answer (default 60; 0 = none)
  --verbose               show the server's stderr (its log) as it comes`

export interface ConnectionValues {
  header?: string[]
  protocol?: string
  timeout?: string
  verbose?: boolean
}

/** Connects as the shared flags say; `extra` adds the command's own handlers and observers. */
export async function connectWith (target: Target, values: ConnectionValues, context: CommandContext, extra: Partial<ConnectOptions> = {}): Promise<Connected> {
  const { output } = context
  return await connect(target, {
    protocol: protocolOf(values.protocol),
    headers: headersOf(values.header),
    timeoutMs: secondsOf(values.timeout, '--timeout', 60_000),
    verbose: values.verbose === true,
    stderr: context.stderr,
    onNotification: () => {},
    onNoise: (line) => { output.err(output.styleErr('yellow', `server stdout (not MCP): ${line.slice(0, 200)}`)) },
    ...extra
  })
}

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
