import type { FastifyInstance } from 'fastify'
import type { TSchema } from '@sinclair/typebox'
import { AlreadyStartedError, InvalidMessageError, InvalidOptionsError, NotFoundError, StartFailedError } from './errors.js'
import { createStderrLogger } from './util/logger.js'
import { ProtocolServer, type MCPRegistryApi } from './protocol/protocol-server.js'
import type {
  AppResourceDefinition, ArgsOf, JsonSchema, PromptArgument, PromptDefinition, PromptHandler, ResourceDefinition, ResourceHandler,
  SkillDefinition, ToolDefinition, ToolHandler
} from './protocol/definitions.js'
import { protocolExtensions } from './extensions/index.js'
import type { Registration } from './protocol/registry.js'
import type { Middleware } from './protocol/authz/middleware.js'
import type { ServerOptions } from './schemas/server.js'
import { pluginOptionsOf, resolveServerOptions, type ResolvedAuthOptions, type ResolvedServerOptions } from './schemas/resolve.js'
import { TaskStoreSlot } from './scale/task-store-slot.js'
import { StdioRunner } from './transports/stdio/runner.js'

/** What `start()` resolves with on stdio. */
export interface StdioStartInfo {
  transport: 'stdio'
}

/** What `start()` resolves with on HTTP: where the listener is. */
export interface HttpStartInfo {
  transport: 'sse'
  /** Base URL of the listener, `http://<host>:<port>` (IPv6 hosts in brackets); the endpoints hang off it. */
  url: string
  /** The interface bound, as configured. */
  host: string
  /** The port bound: the one the system picked when the configured port is 0. */
  port: number
}

/**
 * What `start()` resolves with, following the options' transport: {@link HttpStartInfo} for
 * `transport: { type: 'sse' }`, {@link StdioStartInfo} for stdio or no transport, and the union
 * when the options' type does not say (a value typed `ServerOptions`).
 */
export type StartInfo<O extends ServerOptions = ServerOptions> =
  O extends { transport: { type: 'sse' } } ? HttpStartInfo
    : O extends { transport: { type: 'stdio' } } ? StdioStartInfo
      : O extends { transport?: undefined } ? StdioStartInfo
        : StdioStartInfo | HttpStartInfo

type Lifecycle = 'idle' | 'starting' | 'started' | 'stopped'

/**
 * A port number in this environment variable serves a server whose options name no transport
 * over HTTP on that port (127.0.0.1) instead of stdio: what `fastify-mcp-server dev --http` sets
 * for the file it runs. Options that name a transport are never overridden.
 */
export const HTTP_PORT_ENV = 'FASTIFY_MCP_SERVER_HTTP_PORT'

/**
 * A standalone MCP server. With no options it speaks stdio; with
 * `transport: { type: 'sse' }` it runs its own Fastify listener. `O` is inferred from the options
 * given, so that `start()` resolves with the listener's `url` for an HTTP configuration.
 */
export class MCPServer<O extends ServerOptions = ServerOptions> implements MCPRegistryApi {
  /** The validated, defaulted, frozen options. */
  readonly options: ResolvedServerOptions
  private readonly core: ProtocolServer
  private lifecycle: Lifecycle = 'idle'
  private stdio: StdioRunner | undefined
  private app: FastifyInstance | undefined
  private stopping: Promise<void> | undefined
  private readonly taskSlot: TaskStoreSlot | undefined

  constructor (options?: O) {
    this.options = resolveServerOptions(withEnvironmentTransport(options))
    const logger = createStderrLogger(this.options.logLevel)
    // Scale-out keeps tasks in Redis, which start() connects: the core gets a slot filled then.
    const { transport } = this.options
    if (transport.type === 'sse' && transport.options.scaleOut !== undefined && this.options.taskStore === undefined) this.taskSlot = new TaskStoreSlot()
    const authenticated = transport.type === 'sse' && transport.options.auth !== undefined
    this.core = new ProtocolServer({ ...this.options, taskStore: this.options.taskStore ?? this.taskSlot, logger, extensions: protocolExtensions(this.options.skills), authenticated })
  }

  tool<I extends TSchema | JsonSchema, O extends TSchema | JsonSchema> (definition: ToolDefinition<I, O>, handler: ToolHandler<ArgsOf<I>>): Registration {
    return this.core.tool(definition, handler)
  }

  resource<U extends string> (definition: ResourceDefinition<U>, handler: ResourceHandler<U>): Registration {
    return this.core.resource(definition, handler)
  }

  prompt<const A extends readonly PromptArgument[]> (definition: PromptDefinition<A>, handler: PromptHandler<A>): Registration {
    return this.core.prompt(definition, handler)
  }

  appResource (definition: AppResourceDefinition): Registration {
    return this.core.appResource(definition)
  }

  skill (definition: SkillDefinition): Registration {
    return this.core.skill(definition)
  }

  skills (parentDir: string): Registration {
    return this.core.skills(parentDir)
  }

  use (middleware: Middleware): void {
    this.core.use(middleware)
  }

  broadcast (notification: { method: string, params?: Record<string, unknown> }): number {
    return this.core.broadcast(notification)
  }

  notifyResourceUpdated (uri: string): number {
    return this.core.notifyResourceUpdated(uri)
  }

  get sessionCount (): number {
    return this.core.sessionCount
  }

  /** Starts serving. Resolves once ready; rejects (and leaves nothing open) on any startup failure. */
  async start (): Promise<StartInfo<O>> {
    if (this.lifecycle !== 'idle') throw new AlreadyStartedError()
    this.lifecycle = 'starting'
    try {
      this.core.verifyDefinitions()
      const info = this.options.transport.type === 'stdio' ? this.startStdio() : await this.startHttp()
      this.lifecycle = 'started'
      // The info follows the resolved transport, which is the one the options' type names.
      return info as StartInfo<O>
    } catch (error) {
      this.lifecycle = 'stopped'
      await this.app?.close().catch(() => {})
      throw error
    }
  }

  /** Ends every session and closes the listener. Idempotent; safe before start(). */
  async stop (): Promise<void> {
    this.stopping ??= (async () => {
      this.lifecycle = 'stopped'
      // Listen streams first: they get their graceful end while the transports can still carry it.
      await this.core.closeListenStreams()
      await this.stdio?.stop()
      await this.app?.close()
      this.core.closeAllSessions('server stopped')
      await this.core.tasks.close()
    })()
    await this.stopping
  }

  /** Resolves when a stdio server's input has ended (the client went away). */
  get closed (): Promise<void> {
    return this.stdio?.closed ?? Promise.resolve()
  }

  private startStdio (): StdioStartInfo {
    this.stdio = new StdioRunner(this.core, { input: process.stdin, output: process.stdout, maxMessageBytes: this.options.maxMessageBytes })
    this.stdio.start()
    return { transport: 'stdio' }
  }

  private async startHttp (): Promise<HttpStartInfo> {
    const transport = this.options.transport
    const options = pluginOptionsOf(this.options)
    /* c8 ignore next: start() calls this for the sse transport only */
    if (transport.type !== 'sse' || options === undefined) throw new Error('unreachable')
    const { port, host, requestReadTimeoutMs, headersTimeoutMs, trustProxy } = transport.options
    // Loaded here, not with the package: a stdio server never needs Fastify or the HTTP transports
    // (a third of the package's import time).
    const [{ default: Fastify }, { mountMcp, startScaleOut }, { sendTransportError }, { httpLoggerOptions }] = await Promise.all([
      import('fastify'), import('./transports/http/mount.js'), import('./transports/http/replies.js'), import('./transports/http/logger-options.js')
    ])
    const app = Fastify({
      // Behind a proxy, the client's address (what per-client bounds count without auth) is in X-Forwarded-For.
      trustProxy: typeof trustProxy === 'object' ? [...trustProxy] : trustProxy,
      logger: httpLoggerOptions(this.options.logLevel, options.auth as ResolvedAuthOptions | undefined),
      bodyLimit: options.bodyLimit,
      // stop() must not wait for open event streams to end on their own.
      forceCloseConnections: true,
      // Fastify's answer to an undecodable URL quotes it, query string (and credential) included.
      frameworkErrors: async (_error, _request, reply) => sendTransportError(reply, new InvalidMessageError('the URL cannot be decoded')),
      // Slow requests are cut (Fastify's default is no limit at all). Node enforces both only
      // while a request is being received, so event streams, whose requests are complete, live on.
      requestTimeout: requestReadTimeoutMs,
      http: { headersTimeout: headersTimeoutMs, requestTimeout: requestReadTimeoutMs, connectionsCheckingInterval: checkInterval(headersTimeoutMs, requestReadTimeoutMs) }
    })
    this.app = app
    // Fastify's own 404 quotes the URL in its answer and its log line, a credential included.
    app.setNotFoundHandler(async (_request, reply) => sendTransportError(reply, new NotFoundError()))
    const engine = await startScaleOut(app, options)
    if (engine !== undefined) this.taskSlot?.fill(engine.tasks)
    // What was registered on this server is what its routes serve: its own core, mounted directly.
    await mountMcp(app, this.core, options, undefined, engine)
    try {
      await app.listen({ port, host })
    } catch (error) {
      throw new StartFailedError(describeListenError(error, host, port))
    }
    const address = app.server.address()
    const boundPort = typeof address === 'object' && address !== null ? address.port : port
    const urlHost = host.includes(':') ? `[${host}]` : host
    return { transport: 'sse', url: `http://${urlHost}:${boundPort}`, host, port: boundPort }
  }
}

/** The options, with the HTTP transport {@link HTTP_PORT_ENV} asks for when they name none. */
function withEnvironmentTransport (options: ServerOptions | undefined): ServerOptions | undefined {
  const port = process.env[HTTP_PORT_ENV]
  if (port === undefined || port === '' || options?.transport !== undefined) return options
  if (!/^\d{1,5}$/.test(port)) throw new InvalidOptionsError(`${HTTP_PORT_ENV}: expected a port number, got "${port.slice(0, 16)}"`)
  return { ...options, transport: { type: 'sse', options: { port: Number(port) } } }
}

/**
 * How often Node looks for requests past their timeouts, in ms. Its default (30 s) would let a
 * 10 s header timeout run to 40 s; a quarter of the shorter timeout keeps the overrun small, and
 * each check only walks the connections whose request is still arriving.
 */
function checkInterval (headersTimeoutMs: number, requestReadTimeoutMs: number): number {
  const shortest = requestReadTimeoutMs > 0 ? Math.min(headersTimeoutMs, requestReadTimeoutMs) : headersTimeoutMs
  return Math.min(30_000, Math.max(100, Math.floor(shortest / 4)))
}

function describeListenError (error: unknown, host: string, port: number): string {
  const code = (error as NodeJS.ErrnoException).code
  if (code === 'EADDRINUSE') return `port ${port} on ${host} is already in use`
  if (code === 'EACCES') return `permission denied to listen on ${host}:${port} (ports below 1024 need privileges)`
  if (code === 'EADDRNOTAVAIL') return `address ${host} is not available on this machine`
  return error instanceof Error ? error.message : String(error)
}
