import type { Span } from '@opentelemetry/api'
import { NOOP_SPAN } from '../../telemetry/index.js'
import { clientSupportsApps } from '../apps.js'
import type { HandlerContext, ServerRequestOptions } from '../context.js'
import type { HttpContext } from '../http.js'
import type { JsonRpcId } from '../../jsonrpc/messages.js'
import { MissingCapabilityError } from '../modern/errors.js'
import type { Principal } from '../principal.js'
import type { TaskRun } from './run.js'

/** What a task keeps of the request that created it. */
export interface TaskOrigin {
  session: string
  auth: Principal | undefined
  /** Copied out of the request (`RequestHttp.detach`): a task must not hold the request alive. */
  http: HttpContext | undefined
  requestId: JsonRpcId
  protocolVersion: string
  meta: Record<string, unknown> | undefined
  clientCapabilities: Record<string, unknown>
}

/**
 * The `ctx` of a handler running as a task. Same API as in a request, with the
 * task's meaning: `signal` aborts on `tasks/cancel`, TTL expiry or shutdown;
 * `elicit`/`sample`/`listRoots` put the task in `input_required` and resolve
 * when the client answers with `tasks/update`; `progress` becomes the task's
 * `statusMessage`. Logs are dropped: SEP-2663 has no channel for a task's
 * notifications besides its status.
 */
export class TaskContext implements HandlerContext {
  readonly session: string
  readonly auth: Principal | undefined
  /** The HTTP request that started the task, as it was then; undefined on stdio. */
  readonly http: HttpContext | undefined
  readonly requestId: JsonRpcId
  readonly protocolVersion: string
  readonly meta: Record<string, unknown> | undefined
  /** Template variables; tools have none. */
  params: Record<string, string> = {}
  /** A task outlives the request that started it, and its span: a task records no span of its own. */
  readonly span: Span = NOOP_SPAN
  private readonly run: TaskRun
  private readonly clientCapabilities: Record<string, unknown>
  private lastProgress = -Infinity

  constructor (run: TaskRun, origin: TaskOrigin) {
    this.run = run
    this.session = origin.session
    this.auth = origin.auth
    this.http = origin.http
    this.requestId = origin.requestId
    this.protocolVersion = origin.protocolVersion
    this.meta = origin.meta
    this.clientCapabilities = origin.clientCapabilities
  }

  get signal (): AbortSignal {
    return this.run.signal
  }

  get aborted (): boolean {
    return this.run.signal.aborted
  }

  get appsSupported (): boolean {
    return clientSupportsApps(this.clientCapabilities)
  }

  /** The id clients poll; handlers may log it or hand it to an external job system. */
  get taskId (): string {
    return this.run.taskId
  }

  progress (progress: number, total?: number, message?: string): void {
    if (!(progress > this.lastProgress)) return
    this.lastProgress = progress
    this.run.setStatusMessage(message ?? (total === undefined ? `${progress}` : `${progress}/${total}`))
  }

  log (): void {}

  sample (params: Record<string, unknown>, options?: ServerRequestOptions): Promise<Record<string, unknown>> {
    return this.ask('sampling', 'sampling/createMessage', params, options)
  }

  elicit (params: Record<string, unknown>, options?: ServerRequestOptions): Promise<Record<string, unknown>> {
    return this.ask('elicitation', 'elicitation/create', params, options)
  }

  listRoots (options?: ServerRequestOptions): Promise<Record<string, unknown>> {
    return this.ask('roots', 'roots/list', undefined, options)
  }

  /** Already a task. */
  async startTask (): Promise<boolean> {
    return true
  }

  /** A task has no stream of its own to close. */
  closeStream (): boolean {
    return false
  }

  private ask (capability: string, method: string, params: Record<string, unknown> | undefined, options: ServerRequestOptions = {}): Promise<Record<string, unknown>> {
    if (this.clientCapabilities[capability] === undefined) {
      return Promise.reject(new MissingCapabilityError(capability))
    }
    // A client may take its time to answer a task (that is what tasks are for): no timeout unless one is asked for.
    const signals = [options.signal, options.timeoutMs === undefined ? undefined : AbortSignal.timeout(options.timeoutMs)]
      .filter((s): s is AbortSignal => s !== undefined)
    const signal = signals.length === 0 ? undefined : signals.length === 1 ? signals[0] : AbortSignal.any(signals)
    return this.run.requestInput(params === undefined ? { method } : { method, params }, signal)
  }
}
