import type { FastifyInstance } from 'fastify'
import type { McpCore } from '../protocol/core.js'
import type { ResolvedPluginOptions } from '../schemas/resolve.js'
import { setupHttp, type HttpKit } from './http.js'
import { registerSseRoutes } from './sse.js'

/**
 * Mounts the HTTP transports from the plugin's instance: an encapsulated
 * child (under `prefix`) with the shared pieces first (body parsing, error
 * contract, guards, CORS, auth, timers), then each transport's routes; then
 * auth's own routes, which live at the host root whatever the prefix.
 */
export async function registerHttpTransports (app: FastifyInstance, core: McpCore, options: ResolvedPluginOptions, prefix: string | undefined): Promise<void> {
  const mounted: { http?: HttpKit } = {}
  await app.register(async (child: FastifyInstance) => {
    const endpoints = [options.endpoint, options.messageEndpoint]
    const http = await setupHttp(child, core, options, endpoints)
    registerSseRoutes(child, core, options, http)
    mounted.http = http
  }, prefix === undefined ? {} : { prefix })
  const auth = mounted.http?.auth
  if (auth !== undefined) await app.register(async (root: FastifyInstance) => { await auth.registerRoutes(root) })
}
