import type { FastifyInstance } from 'fastify'
import type { LogLevel } from '../protocol/session.js'
import { MCPServer } from '../server.js'
import type { Channel, Inbound } from './channel.js'
import { TestClient } from './client.js'
import { Connection, LEGACY_VERSION } from './connection.js'
import { HttpChannel } from './http-channel.js'
import { injectExchange } from './inject.js'
import { memoryChannel } from './memory.js'
import type { ClientHandlers, TestProtocolVersion } from './types.js'

export interface TestClientOptions extends ClientHandlers {
  /**
   * The protocol generation to speak: `'2026-07-28'` (default; stateless, each request carries its
   * claims) or `'2025-11-25'` (an `initialize` session, opened by `createTestClient`).
   */
  protocolVersion?: TestProtocolVersion
  /** Headers sent with every HTTP request, credentials first among them. Fastify app targets only. */
  headers?: Record<string, string>
  /** Client capabilities declared on top of those the handlers declare (`elicitation` for `onElicit`...). */
  capabilities?: Record<string, unknown>
  /** The client's name and version as the server sees them; default `fastify-mcp-server-testing` 1.0.0. */
  clientInfo?: { name: string, version: string }
  /** Fastify app targets: the path of the Streamable HTTP endpoint (the plugin's `streamableEndpoint` under its prefix); default `/mcp`. */
  path?: string
  /** The lowest level of the log notifications asked for (collected in `client.logs`); default `debug`; `false` asks for none. */
  logLevel?: LogLevel | false
  /**
   * How long each request may wait for its answer, in ms; default 30000; 0 waits forever. A
   * request past it is cancelled like an aborted one, except on 2026-07-28 through a Fastify app
   * before its answer began (inject cannot drop a response not yet started): there the call
   * rejects and its handler runs on until the app closes. Give the call a `signal` to cancel it.
   */
  timeoutMs?: number
}

const VERSIONS: readonly TestProtocolVersion[] = ['2026-07-28', '2025-11-25']

/**
 * A client talking to `target` in this process, with no port: an `MCPServer` that has not been
 * started (through its stdio runner, over in-memory streams), or a Fastify app with the plugin
 * registered (through `app.inject()`, so that its routes, auth, CORS and limits all run). On
 * 2025-11-25 the session is open when this resolves; a refused credential rejects here then, and
 * at the first request on 2026-07-28. `close()` the client when done: nothing else keeps the
 * process alive, and the target stays yours to stop.
 */
export async function createTestClient (target: MCPServer | FastifyInstance, options: TestClientOptions = {}): Promise<TestClient> {
  const version = options.protocolVersion ?? '2026-07-28'
  if (!VERSIONS.includes(version)) throw new TypeError(`protocolVersion must be one of ${VERSIONS.join(', ')}`)
  const connection = new Connection({
    clientInfo: options.clientInfo ?? { name: 'fastify-mcp-server-testing', version: '1.0.0' },
    capabilities: options.capabilities ?? {},
    logLevel: options.logLevel === false ? undefined : options.logLevel ?? 'debug',
    timeoutMs: options.timeoutMs ?? 30_000,
    onElicit: options.onElicit,
    onSample: options.onSample,
    onListRoots: options.onListRoots,
    onNotification: (message) => { client.receive(message) }
  })
  const client = new TestClient(connection)
  const channel = target instanceof MCPServer ? serverChannel(target, options, connection.inbound) : await appChannel(target, options, connection.inbound)
  connection.attach(channel)
  try {
    if (version === LEGACY_VERSION) await connection.initialize()
    else connection.useModern()
  } catch (error) {
    await channel.close()
    throw error
  }
  return client
}

function serverChannel (server: MCPServer, options: TestClientOptions, inbound: Inbound): Channel {
  if (options.headers !== undefined) throw new TypeError('headers apply to a Fastify app target: an MCPServer is driven in process, through its stdio runner, with no HTTP')
  if (options.path !== undefined) throw new TypeError('path applies to a Fastify app target')
  return memoryChannel(server, inbound)
}

async function appChannel (app: FastifyInstance, options: TestClientOptions, inbound: Inbound): Promise<Channel> {
  if (typeof (app as Partial<FastifyInstance> | undefined)?.inject !== 'function') {
    throw new TypeError('createTestClient needs an MCPServer or a Fastify app with the fastify-mcp-server plugin registered')
  }
  await app.ready()
  const path = options.path ?? '/mcp'
  if (!app.hasDecorator('mcp')) throw new TypeError('This Fastify app has no fastify-mcp-server plugin registered')
  if (!app.hasRoute({ method: 'POST', url: path })) {
    throw new TypeError(`This app serves no Streamable HTTP endpoint at POST ${path}: pass options.path (the plugin's streamableEndpoint, under its prefix, e.g. '/api/mcp')`)
  }
  return new HttpChannel(injectExchange(app, path), lowerCased(options.headers ?? {}), inbound, { closesOnlyStreams: true })
}

function lowerCased (headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]))
}
