import type { FastifyInstance } from 'fastify'
import type { McpCore } from './protocol/core.js'
import { createScaleEngine, type RedisScaleEngine } from './scale/redis/engine.js'
import type { EventStore } from './scale/event-store.js'
import type { ScaleEngine } from './scale/types.js'
import type { ResolvedPluginOptions } from './schemas/resolve.js'
import { exposureWarning } from './transports/guards.js'
import { registerHttpTransports } from './transports/index.js'
import { ScaleNode } from './transports/scale-node.js'

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
export async function mountMcp (fastify: FastifyInstance, core: McpCore, options: ResolvedPluginOptions, prefix?: string, scale?: ScaleEngine): Promise<void> {
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
