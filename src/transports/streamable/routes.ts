import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { MethodNotAllowedError } from '../../errors.js'
import type { ProtocolServer } from '../../protocol/protocol-server.js'
import type { ResolvedPluginOptions } from '../../schemas/resolve.js'
import { registerBodyless, type HttpPlumbing } from '../http/plumbing.js'
import type { SessionDirectory } from '../scale-out/directory.js'
import { Responder } from './answer.js'
import { StreamableGet } from './get.js'
import { ModernRequests } from './modern.js'
import { StreamablePost } from './post.js'
import { StreamableSessions } from './sessions.js'

/**
 * The Streamable HTTP transport (MCP 2025-03-26 and later) at one endpoint:
 * POST carries client messages (post.ts; a request is answered as one JSON
 * body or on an event stream: answer.ts), GET opens the standalone stream for
 * server messages or resumes a stream after `Last-Event-ID` (get.ts), DELETE
 * ends the session. 2026-07-28 requests stand alone (modern.ts). With
 * `stateless`, every POST stands alone and GET/DELETE are 405.
 */
export function registerStreamableRoutes (app: FastifyInstance, core: ProtocolServer, options: ResolvedPluginOptions, http: HttpPlumbing, endpoint: string, directory: SessionDirectory): void {
  const sessions = new StreamableSessions(core, http, directory, options)
  const responder = new Responder(core, directory, http)
  const modern = new ModernRequests(core, responder, sessions.env, http)
  const post = new StreamablePost(options, sessions, responder, modern, directory)
  const get = new StreamableGet(sessions, http, directory)

  const end = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const { session } = await sessions.lookup(request)
    await directory.end(session, 'ended by the client')
    return await reply.code(204).send()
  }

  // Without sessions (stateless, or 2026-07-28 only) GET and DELETE have nothing to act on: 405.
  const postOnly = options.stateless || !core.modern.generations.has('legacy')
  const allowed = postOnly ? 'POST' : 'GET, POST, DELETE'
  const notAllowed = async (_request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    reply.header('Allow', allowed)
    throw new MethodNotAllowedError(`use ${allowed}`)
  }

  app.post(endpoint, { ...http.routeOptions(), bodyLimit: options.bodyLimit }, (request, reply) => post.receive(request, reply))
  // Only POST reads a body: the others never fail on one (registerBodyless).
  registerBodyless(app, (scope) => {
    if (postOnly) {
      scope.route({ ...http.routeOptions(), method: ['GET', 'DELETE', 'PUT', 'PATCH'], url: endpoint, handler: notAllowed })
    } else {
      // No automatic HEAD: it would run the GET handler and open a stream nobody reads.
      scope.get(endpoint, { ...http.routeOptions(), exposeHeadRoute: false }, (request, reply) => get.listen(request, reply))
      scope.delete(endpoint, http.routeOptions(), end)
      scope.route({ ...http.routeOptions(), method: ['PUT', 'PATCH', 'HEAD'], url: endpoint, handler: notAllowed })
    }
  })
}
