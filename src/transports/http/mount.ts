import type { FastifyInstance } from 'fastify'
import type { ProtocolServer } from '../../protocol/protocol-server.js'
import { createScaleEngine, type RedisScaleEngine } from '../../scale/redis/engine.js'
import type { EventStore, ScaleEngine } from '../../scale/ports.js'
import type { ResolvedPluginOptions } from '../../schemas/resolve.js'
import { createHostHook, exposureWarning } from './guards.js'
import { setupHttp, type HttpPlumbing } from './plumbing.js'
import { transportErrorHandler } from './replies.js'
import { registerSseRoutes } from '../sse/routes.js'
import { registerStreamableRoutes } from '../streamable/routes.js'
import { ClusterDirectory } from '../scale-out/cluster.js'
import { LocalDirectory, type SessionDirectory } from '../scale-out/directory.js'
import { ScaleNode } from '../scale-out/node.js'

/**
 * The one way MCP is mounted on a Fastify instance, for the plugin and for `MCPServer` alike:
 * `app.mcp`, the close hook and the HTTP transports, from options that are already resolved. The
 * plugin resolves its register options and builds a core; `MCPServer` passes the core it owns and
 * the options it resolved in its constructor. Either way the options are validated exactly once.
 *
 * `scale`: this instance's share of a scale-out engine (several instances serving the same
 * sessions). Its owner closes it after the app; the routing tests pass in-process ones
 * (`MemoryHub.engine()`). Ignored with `stateless`, which has no sessions to share.
 */
export async function mountMcp (fastify: FastifyInstance, core: ProtocolServer, options: ResolvedPluginOptions, prefix?: string, scale?: ScaleEngine): Promise<void> {
  fastify.decorate('mcp', core)
  const node = scale === undefined || options.stateless ? undefined : new ScaleNode(withEventStore(scale, options.eventStore), core, options, fastify.log)

  // Scale-out: the registrations made while starting are not changes to announce; later ones are.
  if (node !== undefined) fastify.addHook('onReady', async () => { node.startAnnouncing() })

  // Said once, when the app listens: only then is the bind address known.
  fastify.addHook('onListen', async () => {
    const warning = exposureWarning(fastify.addresses(), options)
    if (warning !== undefined) fastify.log.warn(warning)
  })

  // Open streams would hold fastify.close() until they end by themselves.
  // Listen streams first: each gets its graceful `complete` answer before the sessions close.
  fastify.addHook('preClose', async () => {
    // Scale-out: the sessions close here only; they live on at the other instances.
    node?.shutdown()
    await core.closeListenStreams()
    core.closeAllSessions('server closing')
  })
  // Tasks outlive their requests: stop their work and release the store with the app.
  fastify.addHook('onClose', async () => { await core.tasks.close() })

  // Routes, CORS and auth hooks live in an encapsulated child: the user's own
  // routes in this app get none of them. fastify-plugin drops `prefix` for the
  // plugin itself, so the transports' child takes it over.
  await registerHttpTransports(fastify, core, options, prefix, node)
}

/**
 * The engine with the user's `eventStore` in place of its own event log (replays, deletes, resumes
 * elsewhere); everything else, restart handling included, is the engine's own.
 */
function withEventStore (engine: ScaleEngine, events: EventStore | undefined): ScaleEngine {
  if (events === undefined) return engine
  return { ...engine, events }
}

/**
 * Connects the scale-out engine when `scaleOut` is set, and closes it with the app (after the
 * sessions, which close in preClose). Rejects with `RedisUnreachableError` when Redis does not
 * answer, which fails `ready()` / `start()`: an instance that cannot share its sessions must not
 * serve. ioredis is loaded only here, only then.
 */
export async function startScaleOut (fastify: FastifyInstance, options: ResolvedPluginOptions): Promise<RedisScaleEngine | undefined> {
  const { scaleOut } = options
  if (scaleOut === undefined) return undefined
  const engine = await createScaleEngine({ ...options, scaleOut }, fastify.log)
  fastify.addHook('onClose', async () => { await engine.close() })
  return engine
}

/**
 * Mounts the HTTP transports from the plugin's instance: an encapsulated
 * child (under `prefix`) with the shared pieces first (body parsing, error
 * contract, guards, CORS, auth, timers), then the session directory (this
 * instance alone, or the cluster `node` belongs to), then each transport's
 * routes; then auth's own routes, which live at the host root whatever the prefix.
 */
export async function registerHttpTransports (app: FastifyInstance, core: ProtocolServer, options: ResolvedPluginOptions, prefix: string | undefined, node?: ScaleNode): Promise<void> {
  const mounted: { http?: HttpPlumbing } = {}
  await app.register(async (child: FastifyInstance) => {
    // Declared up front so every request of the MCP routes has the same shape; the auth hook sets it.
    child.decorateRequest('mcpPrincipal', undefined)
    const streamable = options.streamableEndpoint
    const endpoints = streamable === false ? [options.endpoint, options.messageEndpoint] : [options.endpoint, options.messageEndpoint, streamable]
    const http = await setupHttp(child, core, options, endpoints)
    // This instance alone, or a cluster: the routes below never ask which.
    const directory: SessionDirectory = node === undefined
      ? new LocalDirectory(core, options, http, child.log)
      : new ClusterDirectory(node, core, options, http)
    const stopIdleExpiry = directory.startIdleExpiry()
    child.addHook('onClose', async () => { stopIdleExpiry() })
    registerSseRoutes(child, core, options, http, directory)
    if (streamable !== false) registerStreamableRoutes(child, core, options, http, streamable, directory)
    mounted.http = http
  }, prefix === undefined ? {} : { prefix })
  const auth = mounted.http?.auth
  if (auth !== undefined) {
    await app.register(async (root: FastifyInstance) => {
      // Encapsulated: the error contract for the Host guard's refusals, on these routes only.
      root.setErrorHandler(transportErrorHandler)
      await auth.registerRoutes(root, [createHostHook(options.allowedHosts)])
    })
  }
}
