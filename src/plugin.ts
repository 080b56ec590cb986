import type { FastifyPluginAsync } from 'fastify'
import fp from 'fastify-plugin'
import { McpCore, type MCPRegistryApi } from './protocol/core.js'
import { resolvePluginOptions } from './schemas/resolve.js'
import type { PluginOptions } from './schemas/config.js'
import { exposureWarning } from './transports/guards.js'
import { registerHttpTransports } from './transports/index.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The MCP registry of this app: tools, resources, prompts, broadcast. */
    mcp: MCPRegistryApi
  }
}

/**
 * Lets `MCPServer` hand its own core to the plugin so that what was
 * registered on the server is what the HTTP routes serve. Not public API.
 */
export const kSharedCore = Symbol('fastify-mcp-server.sharedCore')

export type MCPPluginOptions = PluginOptions & { prefix?: string }

const mcpPlugin: FastifyPluginAsync<MCPPluginOptions> = async (fastify, rawOptions) => {
  // Fastify's own register keys are not ours to validate.
  const { prefix, logLevel: _l, logSerializers: _s, [kSharedCore]: shared, ...ours } = rawOptions as MCPPluginOptions & Record<string | symbol, unknown>
  const options = resolvePluginOptions(ours)
  const core = (shared as McpCore | undefined) ?? new McpCore({ ...options, logger: fastify.log })
  fastify.decorate('mcp', core)

  // Said once, when the app listens: only then is the bind address known.
  fastify.addHook('onListen', async () => {
    const warning = exposureWarning(fastify.addresses(), options)
    if (warning !== undefined) fastify.log.warn(warning)
  })

  // Open streams would hold fastify.close() until they end by themselves.
  fastify.addHook('preClose', async () => { core.closeAllSessions('server closing') })
  // Tasks outlive their requests: stop their work and release the store with the app.
  fastify.addHook('onClose', async () => { await core.tasks.close() })

  // Routes, CORS and auth hooks live in an encapsulated child: the user's own
  // routes in this app get none of them. fastify-plugin drops `prefix` for the
  // plugin itself, so the transports' child takes it over.
  await registerHttpTransports(fastify, core, options, prefix)
}

/** `fastify.register(mcp, options)`: MCP over HTTP inside any Fastify 5 app. */
export const mcp = fp(mcpPlugin, { fastify: '5.x', name: 'fastify-mcp-server' })
export default mcp
