import type { OutgoingHttpHeaders } from 'node:http'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { InvalidMessageError } from '../../errors.js'
import type { JsonRpcRequest } from '../../jsonrpc/messages.js'
import { postedMessage } from '../http/body.js'
import { SseStream } from '../http/sse-stream.js'
import type { SessionDirectory } from '../scale-out/directory.js'
import { answerMode, type AnswerMode, type Responder } from './answer.js'
import { checkProtocolVersion, requirePostAccept } from './headers.js'
import type { ModernRequests } from './modern.js'
import type { StreamableSessions } from './sessions.js'

/** The version a stateless request speaks when it names none (MCP: assume 2025-03-26). */
const STATELESS_DEFAULT_VERSION = '2025-03-26'

/** What a POST reads from the options. */
export interface PostOptions {
  readonly stateless: boolean
  readonly maxQueuedBytes: number
}

/**
 * POST: a client message. A 2026-07-28 request stands alone ({@link ModernRequests}); so does
 * every request with `stateless`. Otherwise `initialize` without a session id opens a session,
 * and anything else goes to the session its `Mcp-Session-Id` names.
 */
export class StreamablePost {
  private readonly options: PostOptions
  private readonly sessions: StreamableSessions
  private readonly responder: Responder
  private readonly modern: ModernRequests
  private readonly directory: SessionDirectory

  constructor (options: PostOptions, sessions: StreamableSessions, responder: Responder, modern: ModernRequests, directory: SessionDirectory) {
    this.options = options
    this.sessions = sessions
    this.responder = responder
    this.modern = modern
    this.directory = directory
  }

  async receive (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const accept = requirePostAccept(request)
    const classified = postedMessage(request)
    if (classified.kind === 'request' && this.modern.claims(request, classified.message.params)) {
      return await this.modern.answer(request, reply, classified.message, answerMode(accept, classified.message.method))
    }
    // 2026-07-28 defines no client notifications over HTTP (cancelling is closing the stream): accepted, ignored.
    if (classified.kind !== 'request' && this.modern.claims(request, classified.kind === 'notification' ? classified.message.params : undefined)) {
      return await reply.code(202).send()
    }
    if (this.options.stateless) {
      // Notifications and responses have nowhere to go without a session.
      if (classified.kind !== 'request') return await reply.code(202).send()
      return await this.stateless(request, reply, classified.message, answerMode(accept, classified.message.method))
    }
    if (classified.kind === 'request' && classified.message.method === 'initialize' && request.headers['mcp-session-id'] === undefined) {
      return await this.initialize(request, reply, classified.message, answerMode(accept, 'initialize'))
    }
    const entry = await this.sessions.lookup(request)
    if (classified.kind !== 'request') {
      const away = this.directory.routeAway(entry.session, classified)
      if (away !== undefined) await away
      else await this.responder.dispatch(request, entry.session, classified)
      return await reply.code(202).send()
    }
    if (entry.channel.has(classified.message.id)) throw new InvalidMessageError('a request with this id is already in flight on this session')
    return await this.responder.answer(request, reply, entry, classified.message, answerMode(accept, classified.message.method))
  }

  /** initialize without a session id: a new session, whose id goes out only once it is initialized. */
  private async initialize (request: FastifyRequest, reply: FastifyReply, message: JsonRpcRequest, mode: AnswerMode): Promise<FastifyReply> {
    const entry = this.sessions.open(request)
    const { session, channel } = entry
    channel.collectResponse(message.id)
    await this.responder.dispatch(request, session, { kind: 'request', message })
    const response = channel.takeResponse(message.id) ?? ''
    if (session.state === 'ready') {
      await this.directory.initialized(entry, this.sessions)
      reply.header('Mcp-Session-Id', session.id)
    } else {
      session.close('initialize failed')
    }
    if (mode === 'json') return await reply.code(200).type('application/json; charset=utf-8').send(response)
    reply.hijack()
    const stream = new SseStream(reply.raw, { maxQueuedBytes: this.options.maxQueuedBytes, onOverflow: () => {} })
    stream.open(reply.getHeaders() as OutgoingHttpHeaders)
    stream.message(response)
    stream.end()
    return reply
  }

  /** Stateless: a throwaway session per request, initialized from the request's own version header. */
  private async stateless (request: FastifyRequest, reply: FastifyReply, message: JsonRpcRequest, mode: AnswerMode): Promise<FastifyReply> {
    const version = checkProtocolVersion(request)
    const entry = this.sessions.open(request)
    if (message.method !== 'initialize') {
      entry.session.state = 'ready'
      entry.session.protocolVersion = version ?? STATELESS_DEFAULT_VERSION
    }
    try {
      return await this.responder.answer(request, reply, entry, message, mode)
    } finally {
      entry.session.close('stateless request answered')
    }
  }
}
