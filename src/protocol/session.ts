import type { JsonRpcId, JsonRpcMessage, JsonRpcResponse } from '../jsonrpc/messages.js'
import { ErrorCode, McpError, RequestCancelledError } from '../jsonrpc/errors.js'
import { InflightRequest } from './inflight.js'
import type { Principal } from './principal.js'
import { SoloMap } from '../util/solo-map.js'

/**
 * What a transport provides for one connected client. The dispatcher writes
 * through it and knows nothing else about the wire.
 */
export interface SessionChannel {
  /**
   * Deliver one message. `relatedRequestId` names the client request this
   * message belongs to (its response, or progress/logs/server requests made
   * while handling it); Streamable HTTP routes by it, other transports ignore it.
   */
  send: (message: JsonRpcMessage, relatedRequestId?: JsonRpcId) => void
  /**
   * Optional fast path for broadcasts: a notification already serialized once
   * for every receiver. `relatedRequestId` as for {@link send} (a listen
   * stream's changes go on its request's stream). Transports that frame text
   * (SSE, stdio, Streamable HTTP) implement it.
   */
  sendSerialized?: (json: string, relatedRequestId?: JsonRpcId) => void
  /** Release the transport's resources (end the stream, drop the socket). */
  close: () => void
  /**
   * Optional: ends the response stream carrying `requestId` while its handler
   * goes on, so the client reconnects and resumes (Streamable HTTP with an
   * event store). `retryMs` asks the client to wait that long first. False
   * when the transport cannot do it for this request.
   */
  closeStream?: (requestId: JsonRpcId, retryMs?: number) => boolean
  /**
   * True when every request shares this one channel (stdio): a request has no
   * stream of its own to close, so ending a listen stream must be said in a message.
   */
  readonly multiplexed?: boolean
  /** Which transport this is (middleware and access predicates see it); default `stdio`. */
  readonly transport?: TransportKind
}

/** The transports a message may arrive on: what `op.transport` and an access rule's `ctx.transport` say. */
export type TransportKind = 'stdio' | 'sse' | 'streamable'

export type LogLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency'
export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']

interface PendingRequest {
  resolve: (result: Record<string, unknown>) => void
  reject: (error: Error) => void
  timer: NodeJS.Timeout
  cleanup: () => void
}

/** The protocol generations a server may serve: 2026-07-28 (stateless) and the `initialize` ones. */
export type ProtocolGeneration = 'modern' | 'legacy'

export type SessionState = 'new' | 'ready' | 'closed'

/**
 * One client's conversation with the server, whatever the transport. Holds the
 * negotiated protocol version, the verified principal, handlers in flight (so a
 * cancel or a disconnect aborts them) and server-to-client requests awaiting
 * their answers.
 */
export class Session {
  readonly id: string
  /**
   * Who opened the session: the session is bound to this identity (see `samePrincipal`). Not the
   * caller of a request, whose own principal the dispatcher is given with each message.
   */
  readonly principal: Principal | undefined
  /**
   * The client this session counts against (`Caller.client`: its identity with auth, its address
   * without), set by the transport that opened it, so that a request on it need not work the key
   * out again. Undefined for a session rebuilt from a record on another instance until a request
   * reaches it there (Streamable HTTP then sets that caller's key); until then the caller's key is used.
   */
  client: string | undefined
  state: SessionState = 'new'
  /**
   * Which protocol generation the session speaks. `legacy`: a conversation opened by `initialize`
   * (2025-11-25 and older). `modern`: a throwaway session that carries exactly one MCP 2026-07-28
   * request, its version, capabilities and log level read from that request's `_meta`.
   */
  generation: ProtocolGeneration = 'legacy'
  protocolVersion: string | undefined
  clientInfo: Record<string, unknown> | undefined
  clientCapabilities: Record<string, unknown> = {}
  /** Minimum level of log notifications; undefined until the client sets one. */
  logLevel: LogLevel | undefined
  /** Made at first use: the throwaway session of a 2026-07-28 request (one per call) never subscribes. */
  private subscribed: Set<string> | undefined
  /** Epoch ms of the last message received; transports use it for idle timeouts. */
  lastActivity = Date.now()
  /**
   * Start of the ids of server-to-client requests. With several instances the transport makes it
   * name this instance (`s.{instance}.`), so a client's reply landing elsewhere finds its way back.
   */
  requestIdPrefix = 'srv-'
  /** Why the session closed (`slow consumer: ...`, `idle timeout`...); undefined while open. */
  closeReason: string | undefined

  private readonly channel: SessionChannel
  /** Handlers in flight by request id: one at a time on most sessions (see SoloMap). */
  private readonly inflight = new SoloMap<JsonRpcId, InflightRequest>()
  // The two below are made on first use: most sessions never send a server-to-client request, and
  // the throwaway session of a 2026-07-28 request (one per call) neither sends one nor is listened to.
  private outgoing: Map<JsonRpcId, PendingRequest> | undefined
  private closeListeners: Array<(session: Session) => void> | undefined
  private nextOutgoingId = 1

  constructor (id: string, channel: SessionChannel, principal?: Principal) {
    this.id = id
    this.channel = channel
    this.principal = principal
  }

  /** The resource URIs the client subscribed to (`resources/subscribe`). */
  get subscriptions (): Set<string> {
    this.subscribed ??= new Set()
    return this.subscribed
  }

  /** Whether the client subscribed to `uri`, without making the set (a resource update asks every session). */
  isSubscribed (uri: string): boolean {
    return this.subscribed !== undefined && this.subscribed.has(uri)
  }

  get closed (): boolean {
    return this.state === 'closed'
  }

  /** Number of client requests being handled right now. */
  get inflightCount (): number {
    return this.inflight.size
  }

  send (message: JsonRpcMessage, relatedRequestId?: JsonRpcId): void {
    if (this.state === 'closed') return
    this.channel.send(message, relatedRequestId)
  }

  sendSerialized (json: string, message: JsonRpcMessage | (() => JsonRpcMessage), relatedRequestId?: JsonRpcId): void {
    if (this.state === 'closed') return
    if (this.channel.sendSerialized !== undefined) this.channel.sendSerialized(json, relatedRequestId)
    else this.channel.send(typeof message === 'function' ? message() : message, relatedRequestId)
  }

  /** See {@link SessionChannel.multiplexed}. */
  get multiplexed (): boolean {
    return this.channel.multiplexed === true
  }

  /** The transport the session's messages arrive on. */
  get transport (): TransportKind {
    return this.channel.transport ?? 'stdio'
  }

  /** See {@link SessionChannel.closeStream}; false on transports without resumable streams. */
  closeStream (requestId: JsonRpcId, retryMs?: number): boolean {
    if (this.state === 'closed' || this.channel.closeStream === undefined) return false
    return this.channel.closeStream(requestId, retryMs)
  }

  notify (method: string, params?: Record<string, unknown>, relatedRequestId?: JsonRpcId): void {
    this.send(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params }, relatedRequestId)
  }

  /** Registers a client request as in flight; its signal aborts on cancel or close. */
  beginRequest (id: JsonRpcId): InflightRequest {
    const request = new InflightRequest()
    this.inflight.set(id, request)
    return request
  }

  endRequest (id: JsonRpcId, request: InflightRequest): void {
    // A client may reuse an id after cancelling; only remove our own entry.
    if (this.inflight.get(id) === request) this.inflight.delete(id)
  }

  /** True while the client request `id` is being handled here. */
  isHandling (id: JsonRpcId): boolean {
    return this.inflight.has(id)
  }

  cancelRequest (id: JsonRpcId, reason: string): void {
    this.inflight.get(id)?.abort(new RequestCancelledError(reason))
  }

  /**
   * Sends a server-to-client request (sampling, elicitation, roots) and waits
   * for the client's answer on this session.
   */
  request (method: string, params: Record<string, unknown> | undefined, options: { timeoutMs: number, signal?: AbortSignal, relatedRequestId?: JsonRpcId, onId?: (id: JsonRpcId) => void }): Promise<Record<string, unknown>> {
    if (this.state === 'closed') return Promise.reject(new McpError(ErrorCode.ConnectionClosed, 'Session closed'))
    options.signal?.throwIfAborted()
    const id = `${this.requestIdPrefix}${this.nextOutgoingId++}`
    options.onId?.(id)
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        this.settleOutgoing(id)?.reject(new RequestCancelledError())
        this.notify('notifications/cancelled', { requestId: id, reason: 'cancelled by the server' })
      }
      const timer = setTimeout(() => {
        this.settleOutgoing(id)?.reject(new McpError(ErrorCode.RequestTimeout, `No answer to ${method} within ${options.timeoutMs} ms`))
      }, options.timeoutMs)
      timer.unref()
      options.signal?.addEventListener('abort', onAbort, { once: true })
      this.outgoing ??= new Map()
      this.outgoing.set(id, {
        resolve,
        reject,
        timer,
        cleanup: () => options.signal?.removeEventListener('abort', onAbort)
      })
      const message = params === undefined ? { jsonrpc: '2.0' as const, id, method } : { jsonrpc: '2.0' as const, id, method, params }
      this.send(message, options.relatedRequestId)
    })
  }

  /** Delivers a client's response to a server-to-client request; false when nothing waited for it. */
  receiveResponse (response: JsonRpcResponse): boolean {
    if (response.id === null) return false
    const pending = this.settleOutgoing(response.id)
    if (pending === undefined) return false
    if ('error' in response) pending.reject(new McpError(response.error.code, response.error.message, response.error.data))
    else pending.resolve(response.result)
    return true
  }

  onClose (listener: (session: Session) => void): void {
    this.closeListeners ??= []
    this.closeListeners.push(listener)
  }

  /** Ends the session: aborts handlers in flight, fails pending requests, closes the channel. Idempotent. */
  close (reason = 'session closed'): void {
    if (this.state === 'closed') return
    this.state = 'closed'
    this.closeReason = reason
    // An error captures a stack trace: build it only when something waits (closing 10,000 idle sessions need not).
    if (this.inflight.size > 0 || (this.outgoing !== undefined && this.outgoing.size > 0)) {
      const abortReason = new McpError(ErrorCode.ConnectionClosed, reason)
      for (const request of this.inflight.values()) request.abort(abortReason)
      this.inflight.clear()
      if (this.outgoing !== undefined) for (const id of [...this.outgoing.keys()]) this.settleOutgoing(id)?.reject(abortReason)
    }
    // Clearing allocates a new table even when empty, and most sessions (every 2026-07-28 request's) have none.
    if (this.subscribed !== undefined && this.subscribed.size > 0) this.subscribed.clear()
    this.channel.close()
    const listeners = this.closeListeners
    this.closeListeners = undefined
    if (listeners !== undefined) for (const listener of listeners) listener(this)
  }

  private settleOutgoing (id: JsonRpcId): PendingRequest | undefined {
    const pending = this.outgoing?.get(id)
    if (pending === undefined) return undefined
    this.outgoing?.delete(id)
    clearTimeout(pending.timer)
    pending.cleanup()
    return pending
  }
}

/**
 * What a client and the server agreed on, enough to answer the client's requests: what
 * `initialize` negotiates, and what a session opened without it is given instead (a 2026-07-28
 * request's `_meta`, the stored record of a session opened on another instance).
 */
export interface NegotiatedState {
  readonly protocolVersion: string
  readonly clientCapabilities: Record<string, unknown>
  readonly clientInfo?: Record<string, unknown> | undefined
  readonly logLevel?: LogLevel | undefined
}

/** A session that skips `initialize`: ready at once, in the state `negotiated` describes. */
export function openReadySession (id: string, channel: SessionChannel, principal: Principal | undefined, negotiated: NegotiatedState): Session {
  const session = new Session(id, channel, principal)
  session.state = 'ready'
  session.protocolVersion = negotiated.protocolVersion
  session.clientCapabilities = negotiated.clientCapabilities
  session.clientInfo = negotiated.clientInfo
  session.logLevel = negotiated.logLevel
  return session
}
