import type { OutgoingHttpHeaders } from 'node:http'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { ProtocolServer } from '../../protocol/protocol-server.js'
import type { ClassifiedMessage, JsonRpcRequest } from '../../jsonrpc/messages.js'
import type { Caller } from '../../protocol/caller.js'
import type { Session } from '../../protocol/session.js'
import type { HttpPlumbing } from '../http/plumbing.js'
import type { SessionDirectory, StreamableEntry } from '../scale-out/directory.js'
import type { Acceptable } from './headers.js'
import { UnknownSessionError } from '../../errors.js'
import { modernStatusOf } from './modern-replies.js'
import { isRetryLater, retryLaterFailure } from '../../protocol/retry-later.js'
import { RETRY_AFTER_SECONDS } from '../../util/retry-after.js'

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
export type AnswerMode = 'json' | 'sse' | 'deferred'

export function answerMode (accept: Acceptable, method: string): AnswerMode {
  if (!accept.json) return 'sse'
  return accept.sse && method !== 'initialize' ? 'deferred' : 'json'
}

/**
 * Runs the handler of each message on its session, and answers a request as {@link answerMode}
 * decides: the one path of every request, whichever generation and session kind it comes with.
 */
export class Responder {
  private readonly core: ProtocolServer
  private readonly directory: SessionDirectory
  private readonly http: HttpPlumbing

  constructor (core: ProtocolServer, directory: SessionDirectory, http: HttpPlumbing) {
    this.core = core
    this.directory = directory
    this.http = http
  }

  /** Answers one request as {@link answerMode} decides; `caller` when the route made it already. */
  async answer (request: FastifyRequest, reply: FastifyReply, entry: StreamableEntry, message: JsonRpcRequest, mode: AnswerMode, made?: Caller): Promise<FastifyReply> {
    const { session, channel } = entry
    const caller = made ?? this.http.callerOf(request, 'streamable')
    // Before any stream opens: a refusal is a status (403 step-up, 429) the client can act on.
    const refused = this.http.door.refuses(request, reply, message, caller, session.protocolVersion)
    if (refused !== false && await refused) return reply
    const classified: ClassifiedMessage = { kind: 'request', message }
    if (mode === 'sse') {
      // From here on the raw response is ours; headers set by the hooks (CORS) are carried over.
      reply.hijack()
      channel.openRequestStream(message.id, reply.raw, reply.getHeaders() as OutgoingHttpHeaders)
      await this.dispatch(request, session, classified, caller)
      channel.handlerDone(message.id)
      return reply
    }
    // 'json' and 'deferred' both start as a JSON answer; 'deferred' lets the channel upgrade it.
    channel.collectResponse(message.id, mode === 'deferred' ? reply : undefined)
    // Nobody can read a JSON answer once its connection is gone: the handler is cancelled. Once
    // upgraded to an event stream, the stream decides instead (resumable with a store).
    const onClose = (): void => { if (channel.isCollecting(message.id)) session.cancelRequest(message.id, 'the client disconnected') }
    reply.raw.once('close', onClose)
    await this.dispatch(request, session, classified, caller)
    reply.raw.off('close', onClose)
    // Upgraded (hijacked) while the handler ran: end the stream unless its response did.
    if (reply.sent) {
      channel.handlerDone(message.id)
      return reply
    }
    // Shared state away: 503 with Retry-After, as for every other request that needs it.
    const retryLater = channel.retriesLaterOf(message.id)
    const status = retryLater ? 503 : session.generation === 'modern' ? modernStatusOf(channel.errorCodeOf(message.id), { ladder: false }) : 200
    const response = channel.takeResponse(message.id)
    // The session ended while the request ran (expired, deleted, its record gone): 404, as for a
    // request that names an ended session, so the client starts a new one.
    if (response === undefined && session.closed) throw new UnknownSessionError()
    // Cancelled: MCP sends no response, and 202 is the one non-answer clients expect.
    if (response === undefined) return await reply.code(202).send()
    if (retryLater) reply.header('Retry-After', String(RETRY_AFTER_SECONDS))
    return await reply.code(status).type('application/json; charset=utf-8').send(response)
  }

  /**
   * Hands a message to the dispatcher, with its caller (made here unless the route made it);
   * resolves once it is handled (a request: answered). Never rejects.
   */
  async dispatch (request: FastifyRequest, session: Session, classified: ClassifiedMessage, caller: Caller = this.http.callerOf(request, 'streamable')): Promise<void> {
    try {
      const syncing = classified.kind === 'request' ? this.directory.syncing(session, classified.message.method) : undefined
      if (syncing !== undefined && !await this.caughtUp(session, classified, syncing)) return
      const handled = this.core.dispatcher.dispatch(session, classified, caller)
      // The request is in flight now (registered synchronously): a cancel that overtook it applies.
      if (classified.kind === 'request') this.directory.started(session, classified.message.id)
      await handled
      if (syncing !== undefined) await this.directory.synced(session)
    } catch (error) {
      /* c8 ignore next 2: dispatch answers every failure itself; this only keeps a bug from becoming an unhandled rejection */
      request.log.error({ err: error }, 'MCP dispatch failed')
    }
  }

  /**
   * Waits for the session's latest state before a request that changes it. False when it could
   * not be read (Redis away): the request is answered "retry later" (503) and not handled.
   */
  private async caughtUp (session: Session, classified: ClassifiedMessage, syncing: Promise<void>): Promise<boolean> {
    try {
      await syncing
      return true
    } catch (error) {
      if (classified.kind !== 'request' || !isRetryLater(error)) throw error
      session.send(retryLaterFailure(classified.message.id, error as Error), classified.message.id)
      return false
    }
  }
}
