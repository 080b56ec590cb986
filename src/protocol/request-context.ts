import type { HandlerContext, ServerRequestOptions } from './context.js'
import { type JsonRpcId } from '../jsonrpc/messages.js'
import { ErrorCode, McpError } from '../jsonrpc/errors.js'
import { clientSupportsApps } from './apps.js'
import { RequestHttp, type HttpPeer } from './http.js'
import { kOnAbort, type AbortListener, type InflightRequest } from './inflight.js'
import { requireClientCapabilities } from './modern/errors.js'
import type { Principal } from './principal.js'
import type { TaskContext } from './tasks/task-context.js'
import { LOG_LEVELS, type LogLevel, type Session } from './session.js'
import { LATEST_PROTOCOL_VERSION, supports } from '../jsonrpc/versions.js'
import type { Span } from '@opentelemetry/api'
import { NOOP_SPAN, tracedClientRequest, type ServerOperation } from '../telemetry/index.js'

/**
 * Where a 2026-07-28 request's asks are answered from: the retry's `inputResponses`, or a question
 * left open (`InputRound` in modern/mrtr.ts).
 */
export interface InputAsker {
  ask: (method: string, params: Record<string, unknown> | undefined, key: string | undefined) => Promise<Record<string, unknown>>
}

/**
 * The `ctx` handed to handlers. A class rather than an object of closures so
 * that a call allocates one small object, not a dozen functions.
 */
export class RequestContext implements HandlerContext {
  readonly requestId: JsonRpcId
  readonly meta: Record<string, unknown> | undefined
  /** The principal verified for this request (not the one that opened the session). */
  readonly auth: Principal | undefined
  /** Template variables, for resource handlers. */
  params: Record<string, string> = {}
  /**
   * On a 2026-07-28 request to tools/call, prompts/get or resources/read: where
   * asks are answered from the retry's `inputResponses` (multi-round-trip).
   */
  inputs: InputAsker | undefined
  /**
   * Set by `tools/call` when this call may become a task at the handler's word
   * (`execution.taskStart: 'handler'`): creates the task and resolves with its ctx.
   */
  taskStarter: (() => Promise<TaskContext>) | undefined
  /** After `startTask()`: the task's ctx, to which everything below forwards (the handler keeps this object). */
  private task: TaskContext | undefined
  private starting: Promise<boolean> | undefined
  private readonly sessionRef: Session
  private readonly inflight: InflightRequest
  private readonly requestTimeoutMs: number
  /** The HTTP request that carried this call; undefined on stdio. */
  private readonly peer: HttpPeer | undefined
  private httpView: RequestHttp | undefined
  private lastProgress = -Infinity
  /** The request's telemetry, when an OpenTelemetry SDK listens; see {@link observe}. */
  private operation: ServerOperation | undefined

  constructor (session: Session, requestId: JsonRpcId, inflight: InflightRequest, meta: Record<string, unknown> | undefined, requestTimeoutMs: number, auth: Principal | undefined, peer?: HttpPeer) {
    this.sessionRef = session
    this.peer = peer
    this.auth = auth
    this.requestId = requestId
    this.inflight = inflight
    this.meta = meta
    this.requestTimeoutMs = requestTimeoutMs
  }

  /** Attaches the request's telemetry: its span becomes `ctx.span`, server-to-client requests get CLIENT spans. */
  observe (operation: ServerOperation): void {
    this.operation = operation
  }

  /** The request's SERVER span; a non-recording span when no tracer is active. */
  get span (): Span {
    return this.operation?.span ?? NOOP_SPAN
  }

  /** Built on first read, like {@link signal}: most handlers never need it. */
  get http (): RequestHttp | undefined {
    if (this.peer === undefined) return undefined
    this.httpView ??= new RequestHttp(this.peer)
    return this.httpView
  }

  /** Created on first read: most handlers never need one. */
  get signal (): AbortSignal {
    return this.task?.signal ?? this.inflight.signal
  }

  /**
   * Internal: calls `listener` once when the request is aborted, without an AbortController (see
   * InflightRequest.onAbort). The request's own abort: for handlers that never call `startTask()`
   * (route tools have no `execution`); after it, `signal` is the task's.
   */
  [kOnAbort] (listener: AbortListener): () => void {
    return this.inflight.onAbort(listener)
  }

  /** Whether the request was cancelled or its session closed, without creating a signal. */
  get aborted (): boolean {
    return this.task?.aborted ?? this.inflight.aborted
  }

  get session (): string {
    return this.sessionRef.id
  }

  get protocolVersion (): string {
    return this.sessionRef.protocolVersion ?? LATEST_PROTOCOL_VERSION
  }

  get appsSupported (): boolean {
    return clientSupportsApps(this.sessionRef.clientCapabilities)
  }

  progress (progress: number, total?: number, message?: string): void {
    if (this.task !== undefined) return this.task.progress(progress, total, message)
    const token = this.meta?.progressToken
    // MCP requires progress to increase; a stale or repeated value is dropped rather than confusing the client.
    if ((typeof token !== 'string' && typeof token !== 'number') || !(progress > this.lastProgress)) return
    this.lastProgress = progress
    const params: Record<string, unknown> = { progressToken: token, progress }
    if (total !== undefined) params.total = total
    if (message !== undefined && supports(this.protocolVersion, 'progressMessage')) params.message = message
    this.sessionRef.notify('notifications/progress', params, this.requestId)
  }

  log (level: LogLevel, data: unknown, logger?: string): void {
    if (this.task !== undefined) return
    sendLog(this.sessionRef, level, data, logger, this.requestId)
  }

  sample (params: Record<string, unknown>, options?: ServerRequestOptions): Promise<Record<string, unknown>> {
    return this.clientRequest('sampling', 'sampling/createMessage', params, options)
  }

  elicit (params: Record<string, unknown>, options?: ServerRequestOptions): Promise<Record<string, unknown>> {
    return this.clientRequest('elicitation', 'elicitation/create', params, options)
  }

  closeStream (retryMs?: number): boolean {
    if (this.task !== undefined) return false
    return this.sessionRef.closeStream(this.requestId, retryMs)
  }

  listRoots (options?: ServerRequestOptions): Promise<Record<string, unknown>> {
    return this.clientRequest('roots', 'roots/list', undefined, options)
  }

  startTask (): Promise<boolean> {
    if (this.starting !== undefined) return this.starting
    const starter = this.taskStarter
    if (starter === undefined) return Promise.resolve(false)
    this.starting = starter().then((task) => {
      this.task = task
      return true
    })
    return this.starting
  }

  private clientRequest (capability: string, method: string, params: Record<string, unknown> | undefined, options: ServerRequestOptions = {}): Promise<Record<string, unknown>> {
    if (this.task !== undefined) {
      if (method === 'roots/list') return this.task.listRoots(options)
      return method === 'sampling/createMessage' ? this.task.sample(params ?? {}, options) : this.task.elicit(params ?? {}, options)
    }
    if (this.sessionRef.generation === 'modern') {
      // 2026-07-28 has no server-to-client requests: the question goes back in the result instead
      // (multi-round-trip), and without the capability the answer is -32021.
      if (this.inputs !== undefined) return this.inputs.ask(method, params, options.key)
      try {
        requireClientCapabilities(this.sessionRef.clientCapabilities, capability)
      } catch (error) {
        return Promise.reject(error)
      }
      return Promise.reject(new McpError(ErrorCode.InternalError, `${method} is only available to tools, prompts and resource reads on protocol 2026-07-28`))
    }
    if (this.sessionRef.clientCapabilities[capability] === undefined) {
      return Promise.reject(new McpError(ErrorCode.MethodNotFound, `The client does not support ${capability}`))
    }
    const timeoutMs = options.timeoutMs ?? this.requestTimeoutMs
    const signal = options.signal ?? this.signal
    if (this.operation === undefined) return this.sessionRef.request(method, params, { timeoutMs, signal, relatedRequestId: this.requestId })
    const session = this.sessionRef
    return tracedClientRequest(this.operation, method, params, async (traced, onId) =>
      await session.request(method, traced, { timeoutMs, signal, relatedRequestId: this.requestId, onId }))
  }
}

/** Sends `notifications/message` unless the session asked for a higher level. */
export function sendLog (session: Session, level: LogLevel, data: unknown, logger: string | undefined, relatedRequestId?: JsonRpcId): void {
  const threshold = session.logLevel
  if (threshold === undefined) {
    // 2026-07-28: no logs for a request whose _meta did not ask for them (MUST NOT).
    if (session.generation === 'modern') return
  } else if (LOG_LEVELS.indexOf(level) < LOG_LEVELS.indexOf(threshold)) {
    return
  }
  const params: Record<string, unknown> = { level, data }
  if (logger !== undefined) params.logger = logger
  session.notify('notifications/message', params, relatedRequestId)
}
