import { randomUUID } from 'node:crypto'
import type { OutgoingHttpHeaders } from 'node:http'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import {
  AtCapacityError, ForeignSessionError, InvalidMessageError, MethodNotAllowedError, StreamConflictError,
  UnknownSessionError, UnsupportedMediaTypeError
} from '../errors.js'
import type { McpCore } from '../protocol/core.js'
import { classifyMessage, type ClassifiedMessage, type JsonRpcRequest } from '../protocol/jsonrpc.js'
import { Session } from '../protocol/session.js'
import type { ResolvedPluginOptions } from '../schemas/resolve.js'
import { MemoryEventStore } from './event-store.js'
import { samePrincipal, type HttpKit } from './http.js'
import { SseStream } from './sse-stream.js'
import {
  checkProtocolVersion, lastEventIdOf, requireGetAccept, requirePostAccept, requireSessionId, type Acceptable
} from './streamable-headers.js'
import { StreamableChannel, type StreamEnv } from './streamable-session.js'

/** The version a stateless request speaks when it names none (MCP: assume 2025-03-26). */
const STATELESS_DEFAULT_VERSION = '2025-03-26'

interface Entry {
  session: Session
  channel: StreamableChannel
}

/**
 * The Streamable HTTP transport (MCP 2025-03-26 and later) at one endpoint:
 * POST carries client messages (a request is answered on an event stream or
 * as one JSON body, as the client accepts), GET opens the standalone stream
 * for server messages or resumes a stream after `Last-Event-ID`, DELETE ends
 * the session. With `stateless`, every POST stands alone and GET/DELETE are 405.
 */
export function registerStreamableRoutes (app: FastifyInstance, core: McpCore, options: ResolvedPluginOptions, http: HttpKit, endpoint: string): void {
  // Only sessions opened here: a legacy SSE session id is unknown to this endpoint.
  const sessions = new Map<string, Entry>()
  const env: StreamEnv = {
    // A stateless session lives for one POST: there is nothing to resume.
    store: options.eventStoreSize > 0 && !options.stateless ? new MemoryEventStore(options.eventStoreSize) : undefined,
    streams: http.streams,
    maxQueuedBytes: options.maxQueuedBytes,
    onStoreError: (error) => { app.log.error({ err: error }, 'MCP event store failed') }
  }

  const newSession = (request: FastifyRequest): Entry => {
    if (core.sessionCount >= options.maxSessions) throw new AtCapacityError()
    const channel = new StreamableChannel(env)
    const session = new Session(randomUUID(), channel, request.mcpPrincipal)
    channel.bind(session)
    // Counted at once (capacity), but a 'new' session receives no broadcast.
    core.addSession(session)
    return { session, channel }
  }

  /** The session a request names: 400 without an id, 404 unknown or ended, 403 someone else's. */
  const lookup = (request: FastifyRequest): Entry => {
    const id = requireSessionId(request)
    const entry = id === undefined ? undefined : sessions.get(id)
    if (entry === undefined) throw new UnknownSessionError()
    if (!samePrincipal(entry.session.principal, request.mcpPrincipal)) throw new ForeignSessionError()
    checkProtocolVersion(request)
    entry.session.lastActivity = Date.now()
    return entry
  }

  const dispatch = async (request: FastifyRequest, session: Session, classified: ClassifiedMessage): Promise<void> => {
    try {
      await core.dispatcher.dispatch(session, classified)
    } catch (error) {
      /* c8 ignore next 2: dispatch answers every failure itself; this only keeps a bug from becoming an unhandled rejection */
      request.log.error({ err: error }, 'MCP dispatch failed')
    }
  }

  /** Answers one request: on an event stream when the client takes one, else as a JSON body. */
  const answer = async (request: FastifyRequest, reply: FastifyReply, entry: Entry, message: JsonRpcRequest, accept: Acceptable): Promise<FastifyReply> => {
    const { session, channel } = entry
    const classified: ClassifiedMessage = { kind: 'request', message }
    if (accept.sse) {
      // From here on the raw response is ours; headers set by the hooks (CORS) are carried over.
      reply.hijack()
      channel.openRequestStream(message.id, reply.raw, reply.getHeaders() as OutgoingHttpHeaders)
      await dispatch(request, session, classified)
      channel.finish(message.id)
      return reply
    }
    channel.collectResponse(message.id)
    // Nobody can read a JSON answer once its connection is gone: the handler is cancelled.
    const onClose = (): void => { session.cancelRequest(message.id, 'the client disconnected') }
    reply.raw.once('close', onClose)
    await dispatch(request, session, classified)
    reply.raw.off('close', onClose)
    const response = channel.takeResponse(message.id)
    // Cancelled: MCP sends no response, and 202 is the one non-answer clients expect.
    if (response === undefined) return await reply.code(202).send()
    return await reply.code(200).type('application/json; charset=utf-8').send(response)
  }

  /** initialize without a session id: a new session, whose id goes out only once it is initialized. */
  const initialize = async (request: FastifyRequest, reply: FastifyReply, message: JsonRpcRequest, accept: Acceptable): Promise<FastifyReply> => {
    const entry = newSession(request)
    const { session, channel } = entry
    channel.collectResponse(message.id)
    await dispatch(request, session, { kind: 'request', message })
    const response = channel.takeResponse(message.id) ?? ''
    if (session.state === 'ready') {
      sessions.set(session.id, entry)
      session.onClose(() => { sessions.delete(session.id) })
      reply.header('Mcp-Session-Id', session.id)
    } else {
      session.close('initialize failed')
    }
    // The initialize answer is one message and nothing precedes it: JSON whenever the client takes it.
    if (accept.json) return await reply.code(200).type('application/json; charset=utf-8').send(response)
    reply.hijack()
    const stream = new SseStream(reply.raw, { maxQueuedBytes: options.maxQueuedBytes, onOverflow: () => {} })
    stream.open(reply.getHeaders() as OutgoingHttpHeaders)
    stream.message(response)
    stream.end()
    return reply
  }

  /** Stateless: a throwaway session per request, initialized from the request's own version header. */
  const stateless = async (request: FastifyRequest, reply: FastifyReply, message: JsonRpcRequest, accept: Acceptable): Promise<FastifyReply> => {
    const version = checkProtocolVersion(request)
    const entry = newSession(request)
    if (message.method !== 'initialize') {
      entry.session.state = 'ready'
      entry.session.protocolVersion = version ?? STATELESS_DEFAULT_VERSION
    }
    try {
      // As with sessions, initialize is answered as JSON whenever the client takes it.
      return await answer(request, reply, entry, message, message.method === 'initialize' && accept.json ? { json: true, sse: false } : accept)
    } finally {
      entry.session.close('stateless request answered')
    }
  }

  const receive = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const accept = requirePostAccept(request)
    // No Content-Type and no body: nothing was parsed, and only JSON is accepted.
    if (request.body === undefined) throw new UnsupportedMediaTypeError()
    const classified = classifyMessage(request.body)
    if (classified.kind === 'invalid') throw new InvalidMessageError(classified.reason)
    if (options.stateless) {
      // Notifications and responses have nowhere to go without a session.
      if (classified.kind !== 'request') return await reply.code(202).send()
      return await stateless(request, reply, classified.message, accept)
    }
    if (classified.kind === 'request' && classified.message.method === 'initialize' && request.headers['mcp-session-id'] === undefined) {
      return await initialize(request, reply, classified.message, accept)
    }
    const entry = lookup(request)
    if (classified.kind !== 'request') {
      await dispatch(request, entry.session, classified)
      return await reply.code(202).send()
    }
    if (entry.channel.has(classified.message.id)) throw new InvalidMessageError('a request with this id is already in flight on this session')
    return await answer(request, reply, entry, classified.message, accept)
  }

  const listen = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    requireGetAccept(request)
    const { channel } = lookup(request)
    const lastEventId = lastEventIdOf(request)
    if (lastEventId !== undefined) {
      const plan = await channel.planResume(lastEventId)
      if (plan === undefined) throw new InvalidMessageError('Last-Event-ID is not an event this session can replay')
      reply.hijack()
      channel.resume(plan, reply.raw, reply.getHeaders() as OutgoingHttpHeaders)
      return reply
    }
    if (channel.hasStandalone) throw new StreamConflictError('this session already has a GET stream open')
    reply.hijack()
    // Gone before we got here: no 'close' would ever come to free the stream slot.
    if (reply.raw.socket === null || reply.raw.socket.destroyed) return reply
    channel.openStandalone(reply.raw, reply.getHeaders() as OutgoingHttpHeaders)
    return reply
  }

  const end = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    lookup(request).session.close('ended by the client')
    return await reply.code(204).send()
  }

  const allowed = options.stateless ? 'POST' : 'GET, POST, DELETE'
  const notAllowed = async (_request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    reply.header('Allow', allowed)
    throw new MethodNotAllowedError(`use ${allowed}`)
  }

  app.post(endpoint, { ...http.routeOptions(), bodyLimit: options.bodyLimit }, receive)
  if (options.stateless) {
    app.route({ ...http.routeOptions(), method: ['GET', 'DELETE', 'PUT', 'PATCH'], url: endpoint, handler: notAllowed })
  } else {
    // No automatic HEAD: it would run the GET handler and open a stream nobody reads.
    app.get(endpoint, { ...http.routeOptions(), exposeHeadRoute: false }, listen)
    app.delete(endpoint, http.routeOptions(), end)
    app.route({ ...http.routeOptions(), method: ['PUT', 'PATCH', 'HEAD'], url: endpoint, handler: notAllowed })
  }
}
