import type { FastifyInstance } from 'fastify'
import type { McpCore } from '../protocol/core.js'
import type { ResolvedPluginOptions } from '../schemas/resolve.js'

/**
 * Mounts the HTTP transports on the plugin's encapsulated child instance.
 * (Filled in by the SSE and Streamable HTTP transports.)
 */
export async function registerHttpTransports (_app: FastifyInstance, _core: McpCore, _options: ResolvedPluginOptions): Promise<void> {}
