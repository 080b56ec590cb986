import { randomUUID } from 'node:crypto'
import type { OutgoingHttpHeaders } from 'node:http'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ForeignSessionError, MissingSessionError, UnknownSessionError } from '../../errors.js'
import type { ProtocolServer } from '../../protocol/protocol-server.js'
import { classifyMessage, type ClassifiedMessage } from '../../jsonrpc/messages.js'
import { samePrincipal } from '../../protocol/principal.js'
import { Session } from '../../protocol/session.js'
import type { ResolvedPluginOptions } from '../../schemas/resolve.js'
import { postedMessage } from '../http/body.js'
import type { HttpCaller } from '../http/caller.js'
import type { HttpPlumbing } from '../http/plumbing.js'
import type { SessionDirectory, SseReceiver } from '../scale-out/directory.js'
import { SseStream, messageFrame } from '../http/sse-stream.js'
import { MAX_SESSION_ID_LENGTH } from '../../util/ids.js'

/**
 * The legacy HTTP+SSE transport (MCP 2024-11-05): `GET <endpoint>` opens an
 * event stream whose first event names the URL to POST messages to, and
 * `POST <messageEndpoint>?sessionId=<id>` carries client messages (answered
 * 202; the replies travel on the stream). The session lives where its stream
 * is: a POST for a session held elsewhere goes there through the `directory`.
 */
export function registerSseRoutes (app: FastifyInstance, core: ProtocolServer, options: ResolvedPluginOptions, http: HttpPlumbing, directory: SessionDirectory): void {
  // Only sessions opened here: a Streamable HTTP session id is unknown to this endpoint.
  const sessions = new Map<string, Session>()
  const messageUrl = http.url(options.messageEndpoint)

  const dispatch = (session: Session, classified: ClassifiedMessage, caller: HttpCaller, request: FastifyRequest): void => {
    // A cancel may overtake its forwarded request; kept, it cancels the request as it starts.
    if (directory.keepsCancel(session, classified)) return
    core.dispatcher.dispatch(session, classified, caller).catch(
      /* c8 ignore next: dispatch answers every failure itself; this only keeps a bug from becoming an unhandled rejection */
      (error: unknown) => { request.log.error({ err: error }, 'MCP dispatch failed') })
    // The request is in flight now (registered synchronously).
    if (classified.kind === 'request') directory.started(session, classified.message.id)
  }

  /** POSTs another instance received for the sessions whose streams are here (`request`: the stream's GET). */
  const receiver: SseReceiver = {
    receiveForwarded: (session, json, principal, request) => {
      if (session.state === 'ready') http.limits.established(session)
      session.lastActivity = Date.now()
      directory.used(session)
      dispatch(session, classifyMessage(JSON.parse(json)), http.callerOf(request, 'sse', { principal, bytes: json.length }), request)
    }
  }

  const openStream = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const client = http.limits.checkRoom(request)
    // Gone before we got here: no 'close' would ever come to end a session opened now.
    if (reply.raw.socket === null || reply.raw.socket.destroyed) {
      reply.hijack()
      return
    }
    const id = randomUUID()
    // eslint-disable-next-line prefer-const -- assigned below; onOverflow needs the binding before the session exists
    let session: Session | undefined
    const stream = new SseStream(reply.raw, {
      maxQueuedBytes: options.maxQueuedBytes,
      onOverflow: () => { session?.close('slow consumer: more than maxQueuedBytes waiting') }
    })
    session = new Session(id, {
      send: (message) => { stream.message(JSON.stringify(message)) },
      sendSerialized: (json) => { stream.frame(messageFrame(json)) },
      close: () => { stream.end() },
      transport: 'sse'
    }, request.mcpPrincipal)
    session.client = client
    await directory.sseOpened(session, request, receiver)
    // From here on the raw response is ours; headers set by the hooks (CORS) are carried over.
    reply.hijack()
    stream.open(reply.getHeaders() as OutgoingHttpHeaders)
    stream.event('endpoint', `${messageUrl}?sessionId=${id}`)
    sessions.set(id, session)
    core.addSession(session, request.raw)
    http.limits.track(session, client)
    http.limits.expectClient(session)
    http.streams.add(stream)
    session.onClose(() => { sessions.delete(id) })
    // The client went away: handlers in flight see ctx.signal abort, the session disappears.
    reply.raw.once('close', () => { session?.close('client disconnected') })
    // The stream is the session here: its token expiring ends both.
    http.endWithCredential(request, reply.raw, () => { session?.close('the credential expired') })
  }

  const receiveMessage = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    // Read by hand rather than with a route schema: the parent app's validator
    // compiler (Zod, a custom Ajv...) is inherited by this child and need not understand ours.
    const sessionId = (request.query as Record<string, unknown>).sessionId
    if (typeof sessionId !== 'string' || sessionId === '') throw new MissingSessionError('the sessionId query parameter is required')
    if (sessionId.length > MAX_SESSION_ID_LENGTH) throw new UnknownSessionError()
    // A session leaves the map as it closes: an ended session is an unknown one, unless its stream is elsewhere.
    const session = sessions.get(sessionId)
    if (session === undefined) {
      // Held elsewhere: a request its caller may not make is refused here, before it travels; the
      // rest is answered 202 once the holder has it, or 404 when no instance holds the session
      // (before any complaint about the body, as without rules).
      const forwarded = request.body === undefined ? undefined : classifyMessage(request.body)
      if (forwarded?.kind === 'request' && await http.door.refuses(request, reply, forwarded.message, http.callerOf(request, 'sse'), undefined)) return reply
      await directory.forward(sessionId, request)
      return await accepted(reply)
    }
    if (!samePrincipal(session.principal, request.mcpPrincipal)) throw new ForeignSessionError()
    const classified = postedMessage(request)
    const caller = http.callerOf(request, 'sse')
    // Before the 202: a request its caller may not make is answered 403 (step-up) or 429 instead.
    // Without rules or budgets the door answers `false` at once, and nothing is awaited.
    const refused = classified.kind === 'request' ? http.door.refuses(request, reply, classified.message, caller, session.protocolVersion) : false
    if (refused !== false && await refused) return reply
    // Initialized, and the client is back with more: the session is in use.
    if (session.state === 'ready') http.limits.established(session)
    directory.used(session)
    // Accepted now; the answer goes out on the event stream when the handler finishes.
    dispatch(session, classified, caller, request)
    return await accepted(reply)
  }

  // No automatic HEAD route: it would run this handler and open a session nobody reads.
  app.get(options.endpoint, { ...http.routeOptions(), exposeHeadRoute: false }, openStream)
  app.post(options.messageEndpoint, { ...http.routeOptions(), bodyLimit: options.bodyLimit }, receiveMessage)
}

/** A POST taken in: its answers go out on the session's stream. */
function accepted (reply: FastifyReply): FastifyReply {
  return reply.code(202).type('text/plain; charset=utf-8').send('Accepted')
}
