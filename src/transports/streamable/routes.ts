import { randomUUID } from 'node:crypto'
import type { OutgoingHttpHeaders } from 'node:http'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import {
  ForeignSessionError, InvalidMessageError, MethodNotAllowedError, NotAcceptableError, StreamConflictError,
  UnknownSessionError, UnsupportedMediaTypeError
} from '../../errors.js'
import type { McpCore } from '../../protocol/core.js'
import { classifyMessage, failure, type ClassifiedMessage, type JsonRpcRequest } from '../../jsonrpc/messages.js'
import { McpError } from '../../jsonrpc/errors.js'
import { headerMismatch } from '../../protocol/modern/errors.js'
import { admit, readMeta } from '../../protocol/modern/ladder.js'
import { MODERN_VERSIONS, hasModernClaim } from '../../protocol/modern/meta.js'
import { openModernSession } from '../../protocol/modern/session.js'
import { samePrincipal } from '../../protocol/principal.js'
import { Session } from '../../protocol/session.js'
import type { ResolvedPluginOptions } from '../../schemas/resolve.js'
import { registerBodyless, type HttpKit } from '../http/kit.js'
import { checkModernHeaders } from './modern-headers.js'
import { modernStatusOf, sendModernRefusal } from './modern-replies.js'
import { SseStream } from '../http/sse-stream.js'
import {
  checkProtocolVersion, lastEventIdOf, requireGetAccept, requirePostAccept, requireSessionId, type Acceptable
} from './headers.js'
import { StreamableChannel, type StreamEnv } from './channel.js'
import type { SessionDirectory, StreamableEntry, StreamableTable } from '../scale-out/directory.js'
import { clientOf } from '../http/session-limits.js'

/** The version a stateless request speaks when it names none (MCP: assume 2025-03-26). */
const STATELESS_DEFAULT_VERSION = '2025-03-26'

/**
 * How a POSTed request is answered. Every choice between a JSON body and an
 * event stream is made here, and in the one upgrade it allows
 * (`StreamableChannel.streamOf`):
 *
 * - `'json'`: one `application/json` body holding the response alone. For
 *   clients that take only JSON (their request's progress, logs and
 *   server-to-client requests go to the standalone GET stream), and for
 *   `initialize` whenever the client takes JSON: it is one message with
 *   nothing before it, answered before the session is even registered.
 * - `'sse'`: an event stream from the start, for clients that take only that.
 * - `'deferred'`: the client takes both (every SDK client does). Most calls
 *   produce nothing but their response, and a JSON body costs a fraction of
 *   an event stream (no hijack, no SSE framing, no priming event, no event ids
 *   or store records), so the answer starts as JSON. If the response is the
 *   first message of the request, it goes out as that JSON body. If anything
 *   else for the request comes first (progress, a log, sampling or
 *   elicitation, `ctx.closeStream()`), the reply is upgraded at that moment
 *   to an event stream (primed as usual), which carries that message and
 *   everything after it, exactly as an `'sse'` answer would. The price: until
 *   the upgrade the client holds no event id to resume from, so a connection
 *   dropped before then cancels the handler, as for a JSON answer.
 */
type AnswerMode = 'json' | 'sse' | 'deferred'

function answerMode (accept: Acceptable, method: string): AnswerMode {
  if (!accept.json) return 'sse'
  return accept.sse && method !== 'initialize' ? 'deferred' : 'json'
}

type Entry = StreamableEntry

/**
 * The Streamable HTTP transport (MCP 2025-03-26 and later) at one endpoint:
 * POST carries client messages (a request is answered as one JSON body or on
 * an event stream: {@link answerMode}), GET opens the standalone stream
 * for server messages or resumes a stream after `Last-Event-ID`, DELETE ends
 * the session. With `stateless`, every POST stands alone and GET/DELETE are 405.
 */
export function registerStreamableRoutes (app: FastifyInstance, core: McpCore, options: ResolvedPluginOptions, http: HttpKit, endpoint: string, directory: SessionDirectory): void {
  // Only sessions opened here: a legacy SSE session id is unknown to this endpoint.
  const sessions = new Map<string, Entry>()
  const env: StreamEnv = {
    store: directory.events,
    streams: http.streams,
    maxQueuedBytes: options.maxQueuedBytes,
    onStoreError: directory.eventsFailed
  }
  const table: StreamableTable = {
    env,
    get: (id) => sessions.get(id),
    add: (entry) => {
      sessions.set(entry.session.id, entry)
      entry.session.onClose(() => { sessions.delete(entry.session.id) })
    }
  }

  // 2026-07-28 requests: no event store (no event ids, no priming, no resumption), so closing a
  // request's stream cancels it.
  const modernEnv: StreamEnv = { ...env, store: undefined }
  const legacyServed = core.modern.generations.has('legacy')
  const modernServed = core.modern.generations.has('modern')

  /**
   * How the client opened (MCP "dual-era server"): a `_meta` protocol-version
   * claim, or an `MCP-Protocol-Version` header naming a modern revision, is
   * 2026-07-28; anything else is the legacy Streamable HTTP of today, unless
   * legacy is not served. A legacy session's requests carry neither.
   */
  const isModern = (request: FastifyRequest, params: Record<string, unknown> | undefined): boolean => {
    if (!modernServed) return false
    if (!legacyServed || hasModernClaim(params)) return true
    const header = request.headers['mcp-protocol-version']
    return typeof header === 'string' && MODERN_VERSIONS.includes(header.trim())
  }

  const newSession = (request: FastifyRequest): Entry => {
    const client = http.limits.admit(request)
    const channel = directory.channel(env)
    const session = new Session(randomUUID(), channel, request.mcpPrincipal)
    channel.bind(session)
    // Counted at once (capacity), but a 'new' session receives no broadcast.
    core.addSession(session, request.raw)
    http.limits.track(session, client)
    return { session, channel }
  }

  /** The session a request names: 400 without an id, 404 unknown or ended, 403 someone else's. */
  const lookup = async (request: FastifyRequest): Promise<Entry> => {
    const id = requireSessionId(request)
    // Too long to be one of ours: unknown wherever it is asked.
    if (id === undefined) throw new UnknownSessionError()
    const entry = sessions.get(id) ?? await directory.missing(id, table)
    if (!samePrincipal(entry.session.principal, request.mcpPrincipal)) throw new ForeignSessionError()
    checkProtocolVersion(request)
    // The client came back with its session id: initialization is complete.
    http.limits.established(entry.session)
    entry.session.lastActivity = Date.now()
    directory.used(entry.session)
    return entry
  }

  const dispatch = async (request: FastifyRequest, session: Session, classified: ClassifiedMessage): Promise<void> => {
    try {
      const syncing = classified.kind === 'request' ? directory.syncing(session, classified.message.method) : undefined
      if (syncing !== undefined) await syncing
      const handled = core.dispatcher.dispatch(session, classified, request.mcpPrincipal, request.raw)
      // The request is in flight now (registered synchronously): a cancel that overtook it applies.
      if (classified.kind === 'request') directory.started(session, classified.message.id)
      await handled
      if (syncing !== undefined) await directory.synced(session)
    } catch (error) {
      /* c8 ignore next 2: dispatch answers every failure itself; this only keeps a bug from becoming an unhandled rejection */
      request.log.error({ err: error }, 'MCP dispatch failed')
    }
  }

  /** Answers one request as {@link answerMode} decides. */
  const answer = async (request: FastifyRequest, reply: FastifyReply, entry: Entry, message: JsonRpcRequest, mode: AnswerMode): Promise<FastifyReply> => {
    const { session, channel } = entry
    const classified: ClassifiedMessage = { kind: 'request', message }
    if (mode === 'sse') {
      // From here on the raw response is ours; headers set by the hooks (CORS) are carried over.
      reply.hijack()
      channel.openRequestStream(message.id, reply.raw, reply.getHeaders() as OutgoingHttpHeaders)
      await dispatch(request, session, classified)
      channel.handlerDone(message.id)
      return reply
    }
    // 'json' and 'deferred' both start as a JSON answer; 'deferred' lets the channel upgrade it.
    channel.collectResponse(message.id, mode === 'deferred' ? reply : undefined)
    // Nobody can read a JSON answer once its connection is gone: the handler is cancelled. Once
    // upgraded to an event stream, the stream decides instead (resumable with a store).
    const onClose = (): void => { if (channel.isCollecting(message.id)) session.cancelRequest(message.id, 'the client disconnected') }
    reply.raw.once('close', onClose)
    await dispatch(request, session, classified)
    reply.raw.off('close', onClose)
    // Upgraded (hijacked) while the handler ran: end the stream unless its response did.
    if (reply.sent) {
      channel.handlerDone(message.id)
      return reply
    }
    const status = session.era === 'modern' ? modernStatusOf(channel.errorCodeOf(message.id), { ladder: false }) : 200
    const response = channel.takeResponse(message.id)
    // Cancelled: MCP sends no response, and 202 is the one non-answer clients expect.
    if (response === undefined) return await reply.code(202).send()
    return await reply.code(status).type('application/json; charset=utf-8').send(response)
  }

  /**
   * A 2026-07-28 request: the validation ladder (protocol/modern/ladder.ts, with the header rung
   * here), then the dispatcher on a throwaway modern session: the request's own version,
   * capabilities, log level and principal, no session id, no event ids. Closing the answer's
   * connection cancels the handler.
   */
  const modern = async (request: FastifyRequest, reply: FastifyReply, message: JsonRpcRequest, mode: AnswerMode): Promise<FastifyReply> => {
    let meta
    try {
      // `initialize` under a modern header is a client mixing the generations: its body claims nothing the header says.
      if (message.method === 'initialize' && !hasModernClaim(message.params) && request.headers['mcp-protocol-version'] !== undefined) {
        throw headerMismatch('initialize is not a 2026-07-28 request; the MCP-Protocol-Version header claims a modern revision')
      }
      meta = readMeta(message)
      checkModernHeaders(request, message, meta, core.registry)
      admit(message, meta, core.modern)
    } catch (error) {
      if (error instanceof McpError) return await sendModernRefusal(reply, message.id, error)
      /* c8 ignore next: the ladder throws McpError only */
      throw error
    }
    // A listen stream is made of notifications before any answer: a client that takes only JSON would hear none.
    if (message.method === 'subscriptions/listen' && mode === 'json') throw new NotAcceptableError('subscriptions/listen answers with an event stream: Accept must include text/event-stream')
    const channel = new StreamableChannel(modernEnv)
    const session = openModernSession(channel, request.mcpPrincipal, meta)
    channel.bind(session)
    try {
      core.beginModernRequest(session, clientOf(request))
    } catch (error) {
      /* c8 ignore next: beginModernRequest throws McpError only */
      if (!(error instanceof McpError)) throw error
      session.close('refused')
      // 429, as for a client past its share of sessions: this client, not the server, is at its bound.
      return await reply.code(429).type('application/json; charset=utf-8').send(failure(message.id, error.code, error.message, error.data))
    }
    try {
      return await answer(request, reply, { session, channel }, message, mode)
    } finally {
      core.endModernRequest(session)
    }
  }

  /** initialize without a session id: a new session, whose id goes out only once it is initialized. */
  const initialize = async (request: FastifyRequest, reply: FastifyReply, message: JsonRpcRequest, mode: AnswerMode): Promise<FastifyReply> => {
    const entry = newSession(request)
    const { session, channel } = entry
    channel.collectResponse(message.id)
    await dispatch(request, session, { kind: 'request', message })
    const response = channel.takeResponse(message.id) ?? ''
    if (session.state === 'ready') {
      await directory.initialized(entry, table)
      reply.header('Mcp-Session-Id', session.id)
    } else {
      session.close('initialize failed')
    }
    if (mode === 'json') return await reply.code(200).type('application/json; charset=utf-8').send(response)
    reply.hijack()
    const stream = new SseStream(reply.raw, { maxQueuedBytes: options.maxQueuedBytes, onOverflow: () => {} })
    stream.open(reply.getHeaders() as OutgoingHttpHeaders)
    stream.message(response)
    stream.end()
    return reply
  }

  /** Stateless: a throwaway session per request, initialized from the request's own version header. */
  const stateless = async (request: FastifyRequest, reply: FastifyReply, message: JsonRpcRequest, mode: AnswerMode): Promise<FastifyReply> => {
    const version = checkProtocolVersion(request)
    const entry = newSession(request)
    if (message.method !== 'initialize') {
      entry.session.state = 'ready'
      entry.session.protocolVersion = version ?? STATELESS_DEFAULT_VERSION
    }
    try {
      return await answer(request, reply, entry, message, mode)
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
    if (classified.kind === 'request' && isModern(request, classified.message.params)) {
      return await modern(request, reply, classified.message, answerMode(accept, classified.message.method))
    }
    // 2026-07-28 defines no client notifications over HTTP (cancelling is closing the stream): accepted, ignored.
    if (classified.kind !== 'request' && isModern(request, classified.kind === 'notification' ? classified.message.params : undefined)) {
      return await reply.code(202).send()
    }
    if (options.stateless) {
      // Notifications and responses have nowhere to go without a session.
      if (classified.kind !== 'request') return await reply.code(202).send()
      return await stateless(request, reply, classified.message, answerMode(accept, classified.message.method))
    }
    if (classified.kind === 'request' && classified.message.method === 'initialize' && request.headers['mcp-session-id'] === undefined) {
      return await initialize(request, reply, classified.message, answerMode(accept, 'initialize'))
    }
    const entry = await lookup(request)
    if (classified.kind !== 'request') {
      const away = directory.routeAway(entry.session, classified)
      if (away !== undefined) await away
      else await dispatch(request, entry.session, classified)
      return await reply.code(202).send()
    }
    if (entry.channel.has(classified.message.id)) throw new InvalidMessageError('a request with this id is already in flight on this session')
    return await answer(request, reply, entry, classified.message, answerMode(accept, classified.message.method))
  }

  const resumeLocal = async (request: FastifyRequest, reply: FastifyReply, channel: StreamableChannel, lastEventId: string): Promise<FastifyReply> => {
    const plan = await channel.planResume(lastEventId)
    if (plan === undefined) throw new InvalidMessageError('Last-Event-ID is not an event this session can replay')
    reply.hijack()
    channel.resume(plan, reply.raw, reply.getHeaders() as OutgoingHttpHeaders)
    http.endWithCredential(request, reply.raw, () => { reply.raw.end() })
    return reply
  }

  const listen = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    requireGetAccept(request)
    const entry = await lookup(request)
    const { channel } = entry
    const lastEventId = lastEventIdOf(request)
    if (lastEventId !== undefined) return await (directory.resumeElsewhere(request, reply, entry, lastEventId) ?? resumeLocal(request, reply, channel, lastEventId))
    if (channel.hasStandalone) throw new StreamConflictError('this session already has a GET stream open')
    const elsewhere = directory.openStream0(request, reply, entry)
    if (elsewhere !== undefined) return await elsewhere
    reply.hijack()
    // Gone before we got here: no 'close' would ever come to free the stream slot.
    if (reply.raw.socket === null || reply.raw.socket.destroyed) return reply
    channel.openStandalone(reply.raw, reply.getHeaders() as OutgoingHttpHeaders)
    // A GET stream ends with its token; the session does not: the client reopens the stream with a fresh one.
    http.endWithCredential(request, reply.raw, () => { reply.raw.end() })
    return reply
  }

  const end = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const { session } = await lookup(request)
    await directory.end(session, 'ended by the client')
    return await reply.code(204).send()
  }

  // Without sessions (stateless, or 2026-07-28 only) GET and DELETE have nothing to act on: 405.
  const postOnly = options.stateless || !legacyServed
  const allowed = postOnly ? 'POST' : 'GET, POST, DELETE'
  const notAllowed = async (_request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    reply.header('Allow', allowed)
    throw new MethodNotAllowedError(`use ${allowed}`)
  }

  app.post(endpoint, { ...http.routeOptions(), bodyLimit: options.bodyLimit }, receive)
  // Only POST reads a body: the others never fail on one (registerBodyless).
  registerBodyless(app, (scope) => {
    if (postOnly) {
      scope.route({ ...http.routeOptions(), method: ['GET', 'DELETE', 'PUT', 'PATCH'], url: endpoint, handler: notAllowed })
    } else {
      // No automatic HEAD: it would run the GET handler and open a stream nobody reads.
      scope.get(endpoint, { ...http.routeOptions(), exposeHeadRoute: false }, listen)
      scope.delete(endpoint, http.routeOptions(), end)
      scope.route({ ...http.routeOptions(), method: ['PUT', 'PATCH', 'HEAD'], url: endpoint, handler: notAllowed })
    }
  })
}
