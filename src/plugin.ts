import type { FastifyPluginAsync } from 'fastify'
import fp from 'fastify-plugin'
import { protocolExtensions } from './extensions/index.js'
import { ProtocolServer, type MCPRegistryApi } from './protocol/protocol-server.js'
import type { Principal } from './protocol/principal.js'
import type { RouteToolConfig } from './routes/index.js'
import type { PluginOptions } from './schemas/plugin.js'
import { resolvePluginOptions } from './schemas/resolve.js'

// Here, in a module the package root imports, so that the augmentation reaches users' types too.
declare module 'fastify' {
  interface FastifyInstance {
    /** The MCP registry of this app: tools, resources, prompts, app pages, skills, broadcast. */
    mcp: MCPRegistryApi
  }
  interface FastifyRequest {
    /** On the MCP routes: the principal verified by the MCP auth hook; undefined when auth is off. */
    mcpPrincipal?: Principal
  }
  interface FastifyContextConfig {
    /**
     * This route as an MCP tool: `true` exposes it, `false` never, an object exposes it and says
     * how it looks (name, title, description, annotations). Unset: `routes.include` decides.
     */
    mcp?: boolean | RouteToolConfig
  }
}

/** Options of `fastify.register(mcp, options)`: the MCP options plus Fastify's own `prefix`. */
export type MCPPluginOptions = PluginOptions & { prefix?: string }

const mcpPlugin: FastifyPluginAsync<MCPPluginOptions> = async (fastify, rawOptions) => {
  // Fastify's own register keys (prefix, logLevel, logSerializers) are not ours to validate.
  const options = resolvePluginOptions(rawOptions)
  // The HTTP side loads with the first registration, not with the package: a stdio server never needs it.
  const [{ mountMcp, startScaleOut }, { routeTools }] = await Promise.all([import('./transports/http/mount.js'), import('./routes/index.js')])
  // Scale-out first: its shared task store goes into the core (unless the app brought its own).
  const engine = await startScaleOut(fastify, options)
  const core = new ProtocolServer({ ...options, taskStore: options.taskStore ?? engine?.tasks, logger: fastify.log, extensions: protocolExtensions(options.skills), authenticated: options.auth !== undefined })
  // What was registered is checked as a whole once the app has registered it all: ready() rejects.
  fastify.addHook('onReady', async () => { core.verifyDefinitions() })
  const routes = routeTools(fastify, core, options)
  await mountMcp(fastify, core, options, rawOptions.prefix, engine)
  // From here on: the routes the app declares are candidates to become tools; the MCP routes are not.
  routes.discover()
}

/** `fastify.register(mcp, options)`: MCP over HTTP inside any Fastify 5 app. */
export const mcp = fp(mcpPlugin, { fastify: '5.x', name: 'fastify-mcp-server' })
