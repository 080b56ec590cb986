import type { FastifyInstance } from 'fastify'
import type { ProtocolServer } from '../protocol/protocol-server.js'
import type { ResolvedPluginOptions } from '../schemas/resolve.js'
import { RouteCollector } from './collect.js'

export type { RouteToolConfig } from './config.js'

/**
 * Fastify routes as MCP tools (docs/routes-as-tools.md), on the plugin's instance. Call it before
 * the MCP routes are mounted: the tools are registered at `ready()` ahead of whatever the mount
 * adds to it (scale-out starts announcing list changes there). Then call `discover()` once they
 * are: every route declared from then on, in this scope and the scopes it encloses, is a candidate,
 * and the MCP routes never are.
 */
export function routeTools (app: FastifyInstance, core: ProtocolServer, options: ResolvedPluginOptions): { discover: () => void } {
  const auth = options.auth
  const collector = new RouteCollector(options.routes, auth?.type === 'apikey' ? auth.options.headerName.toLowerCase() : undefined)
  app.addHook('onReady', async () => {
    collector.register(app, core)
    if (collector.size === 0 && options.routes?.include !== undefined) {
      app.log.warn('routes.include matched no route: routes declared before `await app.register(mcp)` (or in plugins registered before it) are not seen')
    }
  })
  return {
    discover: () => {
      app.addHook('onRoute', function (route) { collector.consider(route, this) })
    }
  }
}
