import { headersOf, protocolOf, secondsOf, type Target } from './args.js'
import { connect, type Connected, type ConnectOptions } from './connect.js'
import type { CommandContext } from './context.js'

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
  --verbose               show the server's stderr (its log) as it comes, and its debug messages`

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
    // Debug messages are for --verbose; info and above are what a tool means the user to see.
    logLevel: values.verbose === true ? 'debug' : 'info',
    signal: context.interrupted,
    stderr: context.stderr,
    onNotification: () => {},
    onNoise: (line) => { output.err(output.styleErr('yellow', `server stdout (not MCP): ${line.slice(0, 200)}`)) },
    ...extra
  })
}
