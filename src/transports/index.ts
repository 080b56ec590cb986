import type { FastifyInstance } from 'fastify'
import type { McpCore } from '../protocol/core.js'
import type { ResolvedPluginOptions } from '../schemas/resolve.js'
import { createHostHook } from './guards.js'
import { setupHttp, type HttpKit } from './http.js'
import { transportErrorHandler } from './replies.js'
import type { ScaleNode } from './scale-node.js'
import { registerSseRoutes } from './sse.js'
import { registerStreamableRoutes } from './streamable.js'

/**
 * Mounts the HTTP transports from the plugin's instance: an encapsulated
 * child (under `prefix`) with the shared pieces first (body parsing, error
 * contract, guards, CORS, auth, timers), then each transport's routes; then
 * auth's own routes, which live at the host root whatever the prefix.
 */
export async function registerHttpTransports (app: FastifyInstance, core: McpCore, options: ResolvedPluginOptions, prefix: string | undefined, scale?: ScaleNode): Promise<void> {
  const mounted: { http?: HttpKit } = {}
  await app.register(async (child: FastifyInstance) => {
    // Declared up front so every request of the MCP routes has the same shape; the auth hook sets it.
    child.decorateRequest('mcpPrincipal', undefined)
    const streamable = options.streamableEndpoint
    const endpoints = streamable === false ? [options.endpoint, options.messageEndpoint] : [options.endpoint, options.messageEndpoint, streamable]
    const http = await setupHttp(child, core, options, endpoints, scale)
    registerSseRoutes(child, core, options, http)
    if (streamable !== false) registerStreamableRoutes(child, core, options, http, streamable)
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
