import type { FastifyReply, FastifyRequest } from 'fastify'
import { NotAcceptableError } from '../../errors.js'
import { McpError } from '../../jsonrpc/errors.js'
import { failure, type JsonRpcRequest } from '../../jsonrpc/messages.js'
import type { ProtocolServer } from '../../protocol/protocol-server.js'
import { headerMismatch } from '../../protocol/modern/errors.js'
import { checkVersionAndMethod } from '../../protocol/modern/ladder.js'
import { MODERN_VERSIONS, hasModernClaim, readModernMeta, type ModernMeta } from '../../protocol/modern/meta.js'
import { openModernSession } from '../../protocol/modern/session.js'
import type { HttpPlumbing } from '../http/plumbing.js'
import type { AnswerMode, Responder } from './answer.js'
import { StreamableChannel } from './channel.js'
import type { StreamResources } from './event-ids.js'
import { checkModernHeaders } from './modern-headers.js'
import { sendModernRefusal } from './modern-replies.js'

/**
 * The 2026-07-28 requests on the Streamable HTTP endpoint: the validation ladder
 * (protocol/modern/ladder.ts, with the header rung in modern-headers.ts), then the dispatcher on
 * a throwaway modern session: the request's own version, capabilities, log level and principal,
 * no session id, no event ids. Closing the answer's connection cancels the handler.
 */
export class ModernRequests {
  private readonly core: ProtocolServer
  private readonly responder: Responder
  private readonly env: StreamResources
  private readonly http: HttpPlumbing
  private readonly legacyServed: boolean
  private readonly modernServed: boolean

  constructor (core: ProtocolServer, responder: Responder, env: StreamResources, http: HttpPlumbing) {
    this.core = core
    this.responder = responder
    this.http = http
    // No event store (no event ids, no priming, no resumption), so closing a request's stream cancels it.
    this.env = { ...env, store: undefined }
    this.legacyServed = core.modern.generations.has('legacy')
    this.modernServed = core.modern.generations.has('modern')
  }

  /**
   * How the client opened (MCP "dual-era server"): a `_meta` protocol-version
   * claim, or an `MCP-Protocol-Version` header naming a modern revision, is
   * 2026-07-28; anything else is the legacy Streamable HTTP of today, unless
   * legacy is not served. A legacy session's requests carry neither.
   */
  claims (request: FastifyRequest, params: Record<string, unknown> | undefined): boolean {
    if (!this.modernServed) return false
    if (!this.legacyServed || hasModernClaim(params)) return true
    const header = request.headers['mcp-protocol-version']
    return typeof header === 'string' && MODERN_VERSIONS.includes(header.trim())
  }

  async answer (request: FastifyRequest, reply: FastifyReply, message: JsonRpcRequest, mode: AnswerMode): Promise<FastifyReply> {
    let meta: ModernMeta
    try {
      // `initialize` under a modern header is a client mixing the generations: its body claims nothing the header says.
      if (message.method === 'initialize' && !hasModernClaim(message.params) && request.headers['mcp-protocol-version'] !== undefined) {
        throw headerMismatch('initialize is not a 2026-07-28 request; the MCP-Protocol-Version header claims a modern revision')
      }
      meta = readModernMeta(message.params)
      checkModernHeaders(request, message, meta, this.core.registry)
      checkVersionAndMethod(message, meta, this.core.modern)
    } catch (error) {
      if (error instanceof McpError) return await sendModernRefusal(reply, message.id, error)
      /* c8 ignore next: the ladder throws McpError only */
      throw error
    }
    // A listen stream is made of notifications before any answer: a client that takes only JSON would hear none.
    if (message.method === 'subscriptions/listen' && mode === 'json') throw new NotAcceptableError('subscriptions/listen answers with an event stream: Accept must include text/event-stream')
    const channel = new StreamableChannel(this.env)
    const caller = this.http.callerOf(request, 'streamable')
    const session = openModernSession(channel, caller.principal, meta)
    channel.bind(session)
    try {
      this.core.beginModernRequest(session, caller)
    } catch (error) {
      /* c8 ignore next: beginModernRequest throws McpError only */
      if (!(error instanceof McpError)) throw error
      session.close('refused')
      // 429, as for a client past its share of sessions: this client, not the server, is at its bound.
      return await reply.code(429).type('application/json; charset=utf-8').send(failure(message.id, error.code, error.message, error.data))
    }
    try {
      return await this.responder.answer(request, reply, { session, channel }, message, mode, caller)
    } finally {
      this.core.endModernRequest(session)
    }
  }
}
