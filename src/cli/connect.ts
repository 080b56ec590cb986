import { ErrorCode, McpError } from '../jsonrpc/errors.js'
import type { JsonRpcNotification } from '../jsonrpc/messages.js'
import type { LogLevel } from '../protocol/session.js'
import { MODERN_VERSION } from '../protocol/modern/meta.js'
import type { Channel } from '../testing/channel.js'
import { TestClient } from '../testing/client.js'
import { Connection, LEGACY_VERSION } from '../testing/connection.js'
import { HttpChannel } from '../testing/http-channel.js'
import { TransportError } from '../testing/transport-error.js'
import type { ClientHandlers } from '../testing/types.js'
import type { ProtocolChoice, Target } from './args.js'
import { spawnServer } from './child.js'
import { ConnectFailure } from './failure.js'
import { fetchExchange } from './fetch.js'
import { openSseChannel } from './sse-channel.js'

/** How long a stdio server has to answer the `server/discover` probe before it counts as a 2025 server. */
const PROBE_TIMEOUT_MS = 10_000

export interface ConnectOptions extends ClientHandlers {
  protocol: ProtocolChoice
  /** Sent with every HTTP request (credentials). */
  headers: Record<string, string>
  timeoutMs: number
  /** The lowest level of the server's log messages to ask for. */
  logLevel: LogLevel
  /** Aborts the connection's set-up (Ctrl-C while the server starts). */
  signal: AbortSignal
  /** Copy a child server's stderr as it comes. */
  verbose: boolean
  stderr: NodeJS.WritableStream
  /** Every notification, as it arrives (progress and logs shown live). */
  onNotification: (message: JsonRpcNotification) => void
  /** A child server wrote something other than protocol on its stdout. */
  onNoise: (line: string) => void
}

export interface Connected {
  client: TestClient
  connection: Connection
  /** How the server was reached: `stdio`, `Streamable HTTP` or `HTTP+SSE`. */
  transport: string
  /** What the child server wrote on stderr lately (nothing for a URL). */
  stderrTail: () => string
}

/**
 * Connects to a target as a real client does: a server file or a command as a child process over
 * stdio, a URL over Streamable HTTP. With `protocol: 'auto'` it asks 2026-07-28 first
 * (`server/discover`) and falls back to an `initialize` session on anything a 2025 server
 * answers (basic/versioning, Backward Compatibility), then, for a URL that has no Streamable
 * HTTP, to HTTP+SSE. A refused credential, a server error or an unreachable server is not a
 * reason to fall back: it is the answer.
 */
export async function connect (target: Target, options: ConnectOptions): Promise<Connected> {
  const connection = new Connection({
    clientInfo: { name: 'fastify-mcp-server-cli', version: '1.0.0' },
    capabilities: {},
    logLevel: options.logLevel,
    timeoutMs: options.timeoutMs,
    onElicit: options.onElicit,
    onSample: options.onSample,
    onListRoots: options.onListRoots,
    onNotification: (message) => {
      client.receive(message)
      options.onNotification(message)
    }
  })
  const client = new TestClient(connection)
  if (target.kind === 'url') return { client, connection, ...await connectUrl(target.url, connection, options), stderrTail: () => '' }
  // A file runs as a host runs it: this node, no flags (NODE_OPTIONS, inherited, carries a loader).
  const [command, args] = target.kind === 'file' ? [process.execPath, [target.path]] : [target.command, target.args]
  const server = spawnServer(command, args, connection.inbound, { verbose: options.verbose, stderr: options.stderr, onNoise: options.onNoise })
  connection.attach(server.channel)
  try {
    await negotiate(connection, options.protocol, options.signal)
  } catch (error) {
    await connection.close()
    throw new ConnectFailure(error, server.stderrTail())
  }
  return { client, connection, transport: 'stdio', stderrTail: server.stderrTail }
}

async function connectUrl (url: URL, connection: Connection, options: ConnectOptions): Promise<{ transport: string }> {
  const streamable = (): Channel => new HttpChannel(fetchExchange(url), options.headers, connection.inbound)
  let channel = streamable()
  connection.attach(channel)
  try {
    if (options.protocol !== '2025-11-25') {
      connection.useModern()
      if (options.protocol === MODERN_VERSION || await speaksModern(connection, isLegacyOverHttp, options.signal)) return { transport: 'Streamable HTTP' }
      // A 2025 server: a fresh channel, without what the probe left (no session to carry over).
      await channel.close()
      channel = streamable()
      connection.attach(channel)
    }
    try {
      await connection.initialize(LEGACY_VERSION, { signal: options.signal })
      return { transport: 'Streamable HTTP' }
    } catch (error) {
      // No Streamable HTTP here (404, 405): the endpoint of the older HTTP+SSE transport, perhaps.
      if (!(error instanceof TransportError) || (error.status !== 404 && error.status !== 405)) throw error
    }
    await channel.close()
    channel = await openSseChannel(url, options.headers, connection.inbound)
    connection.attach(channel)
    await connection.initialize(LEGACY_VERSION, { signal: options.signal })
    return { transport: 'HTTP+SSE' }
  } catch (error) {
    await channel.close()
    throw error
  }
}

/** Settles the generation of a stdio server: pinned, or probed with `server/discover` when `auto`. */
async function negotiate (connection: Connection, protocol: ProtocolChoice, signal: AbortSignal): Promise<void> {
  if (protocol === '2025-11-25') {
    await connection.initialize(LEGACY_VERSION, { signal })
    return
  }
  connection.useModern()
  if (protocol === MODERN_VERSION || await speaksModern(connection, isLegacyOnStdio, signal)) return
  await connection.initialize(LEGACY_VERSION, { signal })
}

/** The `server/discover` probe of a dual-era client: true when the server speaks 2026-07-28. */
async function speaksModern (connection: Connection, isLegacy: (error: unknown) => boolean, signal: AbortSignal): Promise<boolean> {
  try {
    const found = await connection.call('server/discover', {}, { timeoutMs: PROBE_TIMEOUT_MS, signal })
    // A server listing no modern version in its discover speaks only the older ones.
    return Array.isArray(found.supportedVersions) && found.supportedVersions.includes(MODERN_VERSION)
  } catch (error) {
    if (signal.aborted || !isLegacy(error)) throw error
    return false
  }
}

/** stdio: any error answer to the probe, or none in time, means a 2025 server; a dead one does not. */
function isLegacyOnStdio (error: unknown): boolean {
  return error instanceof McpError && error.code !== ErrorCode.ConnectionClosed
}

/**
 * HTTP: a 4xx without a modern error body means a 2025 server (or none at this URL, which the
 * fallbacks find out); 401 and 403 are a credential's answer, 5xx a server's failure.
 */
function isLegacyOverHttp (error: unknown): boolean {
  if (error instanceof TransportError) return error.status >= 400 && error.status < 500 && error.status !== 401 && error.status !== 403
  // A JSON-RPC answer to the probe itself (a 2025 server's -32601, or -32022 naming no modern version).
  return error instanceof McpError && error.code !== ErrorCode.ConnectionClosed && error.code !== ErrorCode.RequestTimeout
}
