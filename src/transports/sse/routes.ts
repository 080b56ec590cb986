import { randomUUID } from 'node:crypto'
import type { OutgoingHttpHeaders } from 'node:http'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import {
  ForeignSessionError, InvalidMessageError, MissingSessionError, UnknownSessionError, UnsupportedMediaTypeError
} from '../../errors.js'
import type { McpCore } from '../../protocol/core.js'
import { classifyMessage } from '../../jsonrpc/messages.js'
import { samePrincipal } from '../../protocol/principal.js'
import { Session } from '../../protocol/session.js'
import type { ResolvedPluginOptions } from '../../schemas/resolve.js'
import type { HttpKit } from '../http/kit.js'
import type { ScaledEntry } from '../scale-out/node.js'
import { recordOf } from '../scale-out/record.js'
import { SseStream, messageFrame } from '../http/sse-stream.js'

/** Session ids are UUIDs; anything much longer is not worth a map lookup. */
const MAX_SESSION_ID_LENGTH = 128

/**
 * The legacy HTTP+SSE transport (MCP 2024-11-05): `GET <endpoint>` opens an
 * event stream whose first event names the URL to POST messages to, and
 * `POST <messageEndpoint>?sessionId=<id>` carries client messages (answered
 * 202; the replies travel on the stream).
 */
export function registerSseRoutes (app: FastifyInstance, core: McpCore, options: ResolvedPluginOptions, http: HttpKit): void {
  // Only sessions opened here: a Streamable HTTP session id is unknown to this endpoint.
  const sessions = new Map<string, Session>()
  const messageUrl = http.url(options.messageEndpoint)
  const scale = http.scale

  const openStream = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const client = http.limits.admit(request)
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
      close: () => { stream.end() }
    }, request.mcpPrincipal)

    if (scale !== undefined) {
      // Scale-out: the record tells other instances where to forward this session's POSTs; this
      // instance, holding the stream, executes them all (so replies and cancels stay here).
      await scale.engine.sessions.create(recordOf(session, 'sse'), scale.ttlMs)
      await scale.engine.sessions.claimGateway(id, scale.self)
      const owned = session
      const entry: ScaledEntry = {
        session: owned,
        kind: 'sse',
        localOnly: false,
        touchedAt: Date.now(),
        holdsStream: true,
        fanout: (_position, json, message) => { owned.sendSerialized(json, message) },
        direct: (message) => {
          if (message.type !== 'forward') return
          if (owned.state === 'ready') http.limits.established(owned)
          owned.lastActivity = Date.now()
          scale.extendRecord(entry)
          dispatchOn(owned, classifyMessage(JSON.parse(message.json)), message.principal, request)
        }
      }
      scale.register(entry)
    }
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

  const dispatchOn = (session: Session, classified: ReturnType<typeof classifyMessage>, principal: FastifyRequest['mcpPrincipal'], request: FastifyRequest): void => {
    // Scale-out: a cancel may overtake its forwarded request; kept, it cancels the request as it starts.
    if (scale?.earlyCancels.keep(session, classified) === true) return
    core.dispatcher.dispatch(session, classified, principal, request.raw).catch(
      /* c8 ignore next: dispatch answers every failure itself; this only keeps a bug from becoming an unhandled rejection */
      (error: unknown) => { request.log.error({ err: error }, 'MCP dispatch failed') })
    // The request is in flight now (registered synchronously).
    if (scale !== undefined && classified.kind === 'request') scale.earlyCancels.applyTo(session, classified.message.id)
  }

  /**
   * Scale-out: a POST for a session whose stream another instance holds is forwarded there, in
   * order, and accepted once the bus has it. Its owner gone: the session is (legacy streams cannot resume).
   */
  const forward = async (request: FastifyRequest, reply: FastifyReply, sessionId: string): Promise<FastifyReply> => {
    const stored = scale === undefined ? undefined : await scale.remoteSession(sessionId)
    if (scale !== undefined && stored === undefined) throw await scale.unknownSession()
    if (scale === undefined || stored === undefined || stored.record.kind !== 'sse' || stored.gateway === undefined) throw new UnknownSessionError()
    // The cached live set may predate an owner started since: the registry decides a "no".
    if (!scale.engine.bus.alive(stored.gateway) && !await scale.engine.bus.checkAlive(stored.gateway)) throw new UnknownSessionError()
    if (!samePrincipal(stored.record.principal, request.mcpPrincipal)) throw new ForeignSessionError()
    if (request.body === undefined) throw new UnsupportedMediaTypeError()
    const classified = classifyMessage(request.body)
    if (classified.kind === 'invalid') throw new InvalidMessageError(classified.reason)
    const principal = request.mcpPrincipal
    // Refused (503) while Redis is unreachable rather than queued: a POST answered 503 never runs later.
    await scale.engine.bus.send(stored.gateway, { type: 'forward', session: sessionId, json: JSON.stringify(request.body), ...(principal === undefined ? {} : { principal }) }, { forRequest: true })
    return await reply.code(202).type('text/plain; charset=utf-8').send('Accepted')
  }

  const receiveMessage = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    // Read by hand rather than with a route schema: the parent app's validator
    // compiler (Zod, a custom Ajv...) is inherited by this child and need not understand ours.
    const sessionId = (request.query as Record<string, unknown>).sessionId
    if (typeof sessionId !== 'string' || sessionId === '') throw new MissingSessionError('the sessionId query parameter is required')
    const session = sessionId.length > MAX_SESSION_ID_LENGTH ? undefined : sessions.get(sessionId)
    if (session === undefined && scale !== undefined && sessionId.length <= MAX_SESSION_ID_LENGTH) return await forward(request, reply, sessionId)
    // A session leaves the map as it closes: an ended session is an unknown one.
    if (session === undefined) throw new UnknownSessionError()
    if (!samePrincipal(session.principal, request.mcpPrincipal)) throw new ForeignSessionError()
    // Initialized, and the client is back with more: the session is in use.
    if (session.state === 'ready') http.limits.established(session)
    // No Content-Type and no body: nothing was parsed, and only JSON is accepted.
    if (request.body === undefined) throw new UnsupportedMediaTypeError()
    const classified = classifyMessage(request.body)
    if (classified.kind === 'invalid') throw new InvalidMessageError(classified.reason)
    scale?.touch(session.id)
    // Accepted now; the answer goes out on the event stream when the handler finishes.
    dispatchOn(session, classified, request.mcpPrincipal, request)
    return await reply.code(202).type('text/plain; charset=utf-8').send('Accepted')
  }

  // No automatic HEAD route: it would run this handler and open a session nobody reads.
  app.get(options.endpoint, { ...http.routeOptions(), exposeHeadRoute: false }, openStream)
  app.post(options.messageEndpoint, { ...http.routeOptions(), bodyLimit: options.bodyLimit }, receiveMessage)
}
