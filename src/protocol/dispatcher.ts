import { failure, success, type ClassifiedMessage, type JsonRpcFailure, type JsonRpcId, type JsonRpcMessage, type JsonRpcNotification, type JsonRpcRequest } from '../jsonrpc/messages.js'
import { ErrorCode, McpError } from '../jsonrpc/errors.js'
import { OPEN_ACCESS, requestAccess, type DoorVerdicts } from './authz/access.js'
import { runChain, type Middleware, type Operation } from './authz/middleware.js'
import { ACTS, LEGACY_METHODS, MODERN_METHODS, methodsWith } from './methods/table.js'
import { kAfterAnswer, type MethodEnv, type MethodHandler, type ServerIdentity } from './methods/types.js'
import { ByteLedger, limitError, limitOf, resolveLimits, type LedgerBound, type ProtocolLimits } from './limits.js'
import { InputRequiredError } from './modern/mrtr.js'
import { isRetryLater, retryLaterFailure } from './retry-later.js'
import { RequestStateCodec, type RequestStateOptions } from './modern/request-state.js'
import { shapeModernResult } from './modern/shaping.js'
import type { Caller } from './caller.js'
import type { ListenHub } from './listen/hub.js'
import type { Principal } from './principal.js'
import type { Registry } from './registry.js'
import { RequestContext } from './request-context.js'
import type { Session } from './session.js'
import { SubscriptionBytes } from './subscription-bytes.js'
import type { TaskManager } from './tasks/manager.js'
import type { ServerOperation, Telemetry } from '../telemetry/index.js'
import type { ErrorLogger } from '../util/logger.js'
import { cancelOf } from '../jsonrpc/cancel.js'
import { LATEST_PROTOCOL_VERSION } from '../jsonrpc/versions.js'

/** Methods a client may call before `initialize` has been answered. */
const BEFORE_INITIALIZE = methodsWith('beforeInitialize')

export interface DispatcherOptions extends ServerIdentity, Partial<ProtocolLimits> {
  requestTimeoutMs: number
  logger: ErrorLogger
  tasks: TaskManager
  /** `requestState` signing of 2026-07-28 multi-round-trip requests; every field has a default. */
  requestState?: RequestStateOptions | undefined
  /** Spans and metrics of each message; absent = none. */
  telemetry?: Telemetry | undefined
  /** Handlers of the methods extensions serve, by name (filled as extensions are installed); default none. */
  extensionMethods?: ReadonlyMap<string, MethodHandler> | undefined
  /** The operation middleware (`server.use`), in order; the dispatcher reads it live. Default none. */
  middleware?: readonly Middleware[] | undefined
  /**
   * Bytes of requests in flight, per client and overall (the core shares it with the 2026-07-28
   * requests it admits); default: a ledger of its own from the limits.
   */
  inflightBytes?: ByteLedger | undefined
  /** The verdicts the door reached before dispatch, reused by the handlers (a predicate runs once per call); default none. */
  doorVerdicts?: DoorVerdicts | undefined
  /**
   * Scale-out: settles once the other instances can see what this one sent them so far
   * (`ChangeRelay.written`); undefined when nothing is on its way. Every answer waits for it.
   */
  written?: (() => Promise<void> | undefined) | undefined
}

/**
 * Turns JSON-RPC messages into registry calls and answers. Knows nothing of
 * HTTP or stdio: a transport hands it a classified message and the session it
 * arrived on, and everything goes back out through `session.send`.
 */
export class Dispatcher {
  private readonly registry: Registry
  private readonly options: DispatcherOptions
  private readonly limits: ProtocolLimits
  private readonly requestState: RequestStateCodec
  private readonly listen: ListenHub
  private readonly extensionMethods: ReadonlyMap<string, MethodHandler>
  private readonly middleware: readonly Middleware[]
  private readonly inflightBytes: ByteLedger
  private readonly subscriptionBytes: SubscriptionBytes

  constructor (registry: Registry, options: DispatcherOptions, listen: ListenHub) {
    this.registry = registry
    this.options = options
    this.extensionMethods = options.extensionMethods ?? new Map()
    this.middleware = options.middleware ?? []
    this.limits = resolveLimits(options)
    this.requestState = new RequestStateCodec(options.requestState)
    this.listen = listen
    this.inflightBytes = options.inflightBytes ?? new ByteLedger(this.limits.maxInflightBytes, this.limits.maxInflightBytesPerClient)
    this.subscriptionBytes = new SubscriptionBytes(this.limits.maxSubscriptionBytes, this.limits.maxSubscriptionBytesPerClient)
  }

  /**
   * Resolves when the message is fully handled (a request's answer has been sent). `caller` is who
   * sent it, as the transport knows (see {@link Caller}): its principal, verified for the transport
   * request that carried this message, is what handlers see as `ctx.auth`. It is not the session's:
   * a session stays bound to the identity that opened it, while each request may come with another
   * credential of that identity (fewer scopes, a refreshed token). Its peer, the HTTP request that
   * carried the message (undefined on stdio), is what handlers see as `ctx.http`.
   */
  async dispatch (session: Session, classified: ClassifiedMessage, caller: Caller): Promise<void> {
    session.lastActivity = Date.now()
    // Undefined, at the cost of two provider lookups, unless an OpenTelemetry SDK is registered.
    const operation = this.options.telemetry?.begin(session, classified, caller.peer)
    if (operation !== undefined) return await this.dispatchObserved(session, classified, caller, operation)
    switch (classified.kind) {
      case 'request':
        return await this.handleRequest(session, classified.message, caller, undefined)
      case 'notification':
        if (this.middleware.length === 0) return this.handleNotification(session, classified.message)
        return await this.notificationThroughChain(session, classified.message, caller.principal)
      case 'response':
        session.receiveResponse(classified.message)
        return
      case 'invalid':
        session.send(failure(classified.id, ErrorCode.InvalidRequest, `Invalid request: ${classified.reason}`))
    }
  }

  /** The same as {@link dispatch}'s plain path, inside the operation's span and timing. */
  private async dispatchObserved (session: Session, classified: ClassifiedMessage, caller: Caller, operation: ServerOperation): Promise<void> {
    if (classified.kind === 'request') {
      await operation.run(async () => { await this.handleRequest(session, classified.message, caller, operation) })
      operation.end(operation.answer === undefined)
    } else if (classified.kind === 'notification') {
      if (this.middleware.length === 0) {
        operation.run(() => { this.handleNotification(session, classified.message) })
      } else {
        await operation.run(async () => { await this.notificationThroughChain(session, classified.message, caller.principal) })
      }
      operation.end(false)
    }
  }

  /**
   * Answers one request, unless it was cancelled or its session closed. `operation` (when telemetry
   * listens) is told the answer. Kept to the shape it had before telemetry: this is the hot path of
   * every call, and returning the answer through it measurably cost (benchmarks/ab-dispatch.js).
   */
  private async handleRequest (session: Session, request: JsonRpcRequest, caller: Caller, operation: ServerOperation | undefined): Promise<void> {
    // A modern session was admitted by the ladder (protocol/modern/ladder.ts) and is ready by construction.
    const modern = session.generation === 'modern'
    const method = (modern ? MODERN_METHODS : LEGACY_METHODS).get(request.method)
    if (method === undefined) {
      this.refuse(session, request.id, failure(request.id, ErrorCode.MethodNotFound, `Method not found: ${request.method.slice(0, 128)}`), operation)
      return
    }
    if (session.state === 'new' && !BEFORE_INITIALIZE.has(request.method)) {
      this.refuse(session, request.id, failure(request.id, ErrorCode.InvalidRequest, 'The session is not initialized: send initialize first'), operation)
      return
    }
    const max = this.limits.maxInflightRequests
    if (session.inflightCount >= max) {
      // Refused before anything is allocated for it: one client must not pile up handlers without bound.
      this.options.telemetry?.limitRefusal('maxInflightRequests')
      this.refuse(session, request.id, failure(request.id, ErrorCode.InvalidRequest, `Too many requests in flight on this session (maxInflightRequests: ${max}); wait for answers before sending more`, { maxInflightRequests: max, limit: 'maxInflightRequests', max }), operation)
      return
    }
    // A 2026-07-28 request took its bytes when it was admitted (ProtocolServer.beginModernRequest).
    const client = modern ? undefined : session.client ?? caller.client
    const bytes = caller.bytes
    if (client !== undefined) {
      const over = this.inflightBytes.take(client, bytes)
      if (over !== undefined) {
        const error = inflightBytesError(over, this.inflightBytes, this.options.telemetry)
        this.refuse(session, request.id, failure(request.id, error.code, error.message, error.data), operation)
        return
      }
    }
    const params = request.params ?? {}
    const inflight = session.beginRequest(request.id)
    const meta = params._meta as Record<string, unknown> | undefined
    const ctx = new RequestContext(session, request.id, inflight, meta, this.options.requestTimeoutMs, caller.principal, caller.peer)
    if (operation !== undefined) ctx.observe(operation)
    const registry = this.registry
    const access = registry.gated
      ? requestAccess(registry, { principal: caller.principal, method: request.method, protocolVersion: session.protocolVersion ?? LATEST_PROTOCOL_VERSION, transport: session.transport, decided: this.options.doorVerdicts?.of(caller) })
      : OPEN_ACCESS
    const env: MethodEnv = { registry, session, ctx, caller, server: this.options, logger: this.options.logger, limits: this.limits, tasks: this.options.tasks, requestState: this.requestState, listen: this.listen, extensionMethods: this.extensionMethods, access, subscriptionBytes: this.subscriptionBytes }
    try {
      const result = this.middleware.length === 0
        ? await method(params, env)
        : await this.throughChain(request.method, params, caller.principal, session, false, async (op) => await method(op.params, env)) as Record<string, unknown>
      // Scale-out: what the handler sent to other instances (a broadcast) is in Redis before its
      // answer goes out, so that what the client does next, on any instance, comes after it.
      const written = this.options.written?.()
      if (written !== undefined) await written
      // A cancelled request gets no answer (MCP cancellation); a closed session cannot take one.
      if (!inflight.aborted) {
        const response = success(request.id, modern ? shapeModernResult(request.method, result, this.options.modern) : result)
        session.send(response, request.id)
        if (operation !== undefined) operation.answer = response
        const after = (result as { [kAfterAnswer]?: JsonRpcMessage[] })[kAfterAnswer]
        if (after !== undefined) for (const message of after) session.send(message, request.id)
        // An input_required answer ends this request: whatever the handler left running stops (its
        // retry is another request, which runs the handler again).
        if (modern && result.resultType === 'input_required') inflight.abort(new InputRequiredError())
      }
    } catch (error) {
      const written = this.options.written?.()
      if (written !== undefined) await written
      if (!inflight.aborted) this.refuse(session, request.id, this.toFailure(request, error, session), operation)
    } finally {
      session.endRequest(request.id, inflight)
      if (client !== undefined) this.inflightBytes.give(client, bytes)
    }
  }

  /** Runs `last` inside the middleware chain, as the operation `method` with `params`. */
  private throughChain (method: string, params: Record<string, unknown>, principal: Principal | undefined, session: Session, notification: boolean,
    last: (op: Operation) => Promise<Record<string, unknown> | undefined>): Promise<Record<string, unknown> | undefined> {
    const acts = ACTS.get(method)
    const name = acts === undefined ? undefined : params[acts === 'resource' ? 'uri' : 'name']
    const op: Operation = {
      method,
      name: typeof name === 'string' ? name : undefined,
      params,
      principal,
      protocolVersion: session.protocolVersion ?? LATEST_PROTOCOL_VERSION,
      transport: session.transport,
      notification
    }
    return runChain(this.middleware, op, last)
  }

  /** A client notification through the middleware chain; what the chain throws is logged, never answered. */
  private async notificationThroughChain (session: Session, notification: JsonRpcNotification, principal: Principal | undefined): Promise<void> {
    try {
      await this.throughChain(notification.method, notification.params ?? {}, principal, session, true, async (op) => {
        this.handleNotification(session, op.params === notification.params ? notification : { ...notification, params: op.params })
        return undefined
      })
    } catch (error) {
      this.options.logger.error({ err: error, method: notification.method, session: session.id }, 'middleware failed on a notification')
    }
  }

  /** Sends an error answer, and tells the operation (when telemetry listens). */
  private refuse (session: Session, id: JsonRpcId, response: JsonRpcFailure, operation: ServerOperation | undefined): void {
    session.send(response, id)
    if (operation !== undefined) operation.answer = response
  }

  private toFailure (request: JsonRpcRequest, error: unknown, session: Session): JsonRpcFailure {
    if (error instanceof McpError) {
      const limit = limitOf(error)
      if (limit !== undefined) this.options.telemetry?.limitRefusal(limit)
      return failure(request.id, error.code, error.message, error.data)
    }
    // Shared state away (logged once per outage where it is detected): the client may retry.
    if (isRetryLater(error)) return retryLaterFailure(request.id, error as Error) as JsonRpcFailure
    this.options.logger.error({ err: error, method: request.method, session: session.id }, 'request handler failed')
    return failure(request.id, ErrorCode.InternalError, 'Internal error')
  }

  private handleNotification (session: Session, notification: JsonRpcNotification): void {
    const cancel = cancelOf({ kind: 'notification', message: notification })
    if (cancel !== undefined) session.cancelRequest(cancel.requestId, cancel.reason)
    // notifications/initialized, roots/list_changed, progress: nothing to do; unknown ones are ignored as JSON-RPC requires.
  }
}

/**
 * The refusal of a request past a bound of bytes in flight (`maxInflightBytesPerClient`, or
 * `maxInflightBytes` for all clients together), counted in telemetry under the option's name.
 */
export function inflightBytesError (over: LedgerBound, ledger: ByteLedger, telemetry: Telemetry | undefined): McpError {
  const limit = over === 'perClient' ? 'maxInflightBytesPerClient' : 'maxInflightBytes'
  const max = over === 'perClient' ? ledger.maxPerClient : ledger.maxOverall
  telemetry?.limitRefusal(limit)
  const whose = over === 'perClient' ? 'the requests of one client' : 'the requests of all clients'
  return limitError(ErrorCode.InvalidRequest, `Too many bytes in flight: ${whose} being handled may hold ${max} bytes (${limit}); wait for answers before sending more`, limit, max)
}
