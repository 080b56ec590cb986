import { randomUUID } from 'node:crypto'
import { TaskLimitError } from '../../errors.js'
import { ErrorCode, McpError } from '../../jsonrpc/errors.js'
import { isTaskId, storeRefusal, validTaskId } from './refusals.js'
import { requestsOf, type NewTask, type PendingInput, type Running, type TaskRun } from './run.js'
import { TERMINAL_STATUSES, type StoredTask, type TaskInputRequest, type TaskManagerOptions, type TaskPatch } from './types.js'

/**
 * Runs task-augmented requests detached from the request that started them and
 * serves `tasks/get`, `tasks/update` and `tasks/cancel` from the store. Each
 * task's work has its own AbortController: the stateless request that created
 * it ends at once, the task goes on until it finishes, is cancelled, expires
 * (TTL) or the server stops.
 */
export class TaskManager {
  private readonly options: TaskManagerOptions
  private readonly running = new Map<string, Running>()
  private readonly listeners: Array<(task: StoredTask) => void> = []
  /** Scale-out: how a cancel taken here reaches the process running the task (see {@link setCancelRelay}). */
  private cancelRelay: ((taskId: string) => Promise<void>) | undefined
  private closed = false

  constructor (options: TaskManagerOptions) {
    this.options = options
  }

  /** Tasks whose work is running in this process. */
  get runningCount (): number {
    return this.running.size
  }

  /** The most tasks one owner may hold: the longest list of task ids worth listening to. */
  get maxTasksPerOwner (): number {
    return this.options.limits.maxTasksPerOwner
  }

  /** The ids among `taskIds` that name a task of `owner` (a listen filter's `taskIds`). */
  async owned (taskIds: readonly string[], owner: string): Promise<string[]> {
    const found = await Promise.all(taskIds.map(async (taskId) => await this.options.store.get(taskId, owner)))
    return taskIds.filter((_taskId, index) => found[index] !== undefined)
  }

  /**
   * Called with the task after every change this process makes (status,
   * input requests, result). For `notifications/tasks` on listen streams.
   */
  onChange (listener: (task: StoredTask) => void): void {
    this.listeners.push(listener)
  }

  /**
   * Scale-out: a `tasks/cancel` of a task whose work runs in another process is relayed there
   * (the transports' node sends it over the bus, and calls {@link cancelledElsewhere} where it
   * arrives), so the handler stops at once rather than at its next store write. Undefined: none.
   */
  setCancelRelay (relay: ((taskId: string) => Promise<void>) | undefined): void {
    this.cancelRelay = relay
  }

  /** Another process cancelled a task (the store says so already): its work stops if it runs here. */
  cancelledElsewhere (taskId: string): void {
    const entry = this.running.get(taskId)
    if (entry === undefined) return
    // The store holds `cancelled`: whatever the handler does now is not written.
    entry.settled = true
    this.stop(taskId, new McpError(ErrorCode.InvalidRequest, 'The task was cancelled'))
  }

  /**
   * Creates a task of `origin` and starts `work` detached. Resolves with
   * the stored task once the store has it (a `tasks/get` then finds it), before
   * the work has done anything that could be observed.
   */
  async start (origin: NewTask, work: (run: TaskRun) => Promise<Record<string, unknown>>, tool?: string): Promise<StoredTask> {
    if (this.closed) throw new McpError(ErrorCode.InternalError, 'The server is stopping; no new tasks are accepted')
    const now = Date.now()
    const task: StoredTask = {
      taskId: randomUUID(),
      owner: origin.owner,
      client: origin.client,
      inputBytes: origin.inputBytes,
      ...(tool === undefined ? {} : { tool }),
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: this.options.ttlMs,
      pollIntervalMs: this.options.pollIntervalMs
    }
    try {
      await this.options.store.create(task, this.options.limits)
    } catch (error) {
      if (error instanceof TaskLimitError) throw storeRefusal(this.options.onLimit, error)
      throw error
    }
    const entry: Running = {
      controller: new AbortController(),
      outstanding: new Map(),
      nextKey: 1,
      lane: Promise.resolve(),
      settled: false,
      // Nobody can read the result after the TTL: stop the work then rather than let it run unowned.
      expiry: setTimeout(() => { this.stop(task.taskId, new McpError(ErrorCode.InternalError, 'The task expired')) }, task.ttlMs)
    }
    entry.expiry.unref()
    this.running.set(task.taskId, entry)
    this.execute(task.taskId, entry, work)
    return task
  }

  /** The task, or undefined when `taskId` names none of `owner`'s (never an error: the caller decides). */
  async peek (taskId: unknown, owner: string): Promise<StoredTask | undefined> {
    return isTaskId(taskId) ? await this.options.store.get(taskId, owner) : undefined
  }

  /** `tasks/get`: the task, or -32602 when it does not exist for this owner (expired, foreign or never issued). */
  async get (taskId: unknown, owner: string): Promise<StoredTask> {
    return await this.find(taskId, owner, 'retrieve')
  }

  /**
   * `tasks/update`: hands answers to the requests the task waits for. Keys
   * that are not outstanding are ignored (SEP-2663); a partial answer leaves
   * the task in `input_required` with the remaining keys.
   */
  async update (taskId: unknown, owner: string, inputResponses: unknown): Promise<void> {
    if (typeof inputResponses !== 'object' || inputResponses === null || Array.isArray(inputResponses)) {
      throw new McpError(ErrorCode.InvalidParams, 'params.inputResponses must be an object')
    }
    const task = await this.find(taskId, owner, 'update')
    const entry = this.running.get(task.taskId)
    if (entry === undefined || TERMINAL_STATUSES.has(task.status)) return
    const answers: Array<[PendingInput, Record<string, unknown>]> = []
    for (const [key, value] of Object.entries(inputResponses as Record<string, unknown>)) {
      const pending = entry.outstanding.get(key)
      if (pending === undefined) continue
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        throw new McpError(ErrorCode.InvalidParams, `params.inputResponses.${key.slice(0, 64)} must be an object (the result of ${pending.request.method})`)
      }
      answers.push([pending, value as Record<string, unknown>])
      entry.outstanding.delete(key)
    }
    if (answers.length === 0) return
    // The store learns first, then the handler resumes: its next write queues behind this one.
    this.write(task.taskId, entry, entry.outstanding.size === 0
      ? { status: 'working', inputRequests: undefined }
      : { status: 'input_required', inputRequests: requestsOf(entry) })
    for (const [pending, value] of answers) pending.resolve(value)
  }

  /**
   * `tasks/cancel`: an acknowledgement. A live task becomes `cancelled` at once
   * and its handler's signal aborts; a finished one stays as it is.
   */
  async cancel (taskId: unknown, owner: string): Promise<void> {
    const task = await this.find(taskId, owner, 'cancel')
    if (TERMINAL_STATUSES.has(task.status)) return
    const patch: TaskPatch = { status: 'cancelled', statusMessage: 'Cancelled by the client', inputRequests: undefined }
    const entry = this.running.get(task.taskId)
    if (entry === undefined) {
      // The work runs in another process: the store says so first (its next write finds the task
      // terminal), then the relay stops its handler there.
      const cancelled = await this.options.store.update(task.taskId, patch, Date.now())
      if (cancelled?.status === 'cancelled') await this.cancelRelay?.(task.taskId)
      return
    }
    this.write(task.taskId, entry, patch)
    this.stop(task.taskId, new McpError(ErrorCode.InvalidRequest, 'The task was cancelled'))
    await entry.lane
  }

  /**
   * Stops every task running here: each is marked failed (its clients could
   * otherwise poll a shared store forever), then the store is closed if it is
   * ours. Idempotent.
   */
  async close (): Promise<void> {
    if (this.closed) return
    this.closed = true
    const lanes: Array<Promise<unknown>> = []
    for (const [taskId, entry] of [...this.running]) {
      this.write(taskId, entry, {
        status: 'failed',
        statusMessage: 'The server stopped before the task finished',
        error: { code: ErrorCode.InternalError, message: 'The server stopped before the task finished' },
        inputRequests: undefined
      })
      lanes.push(entry.lane)
      this.stop(taskId, new McpError(ErrorCode.ConnectionClosed, 'The server stopped'))
    }
    await Promise.all(lanes)
    if (this.options.ownsStore) await this.options.store.close()
  }

  private execute (taskId: string, entry: Running, work: (run: TaskRun) => Promise<Record<string, unknown>>): void {
    const run: TaskRun = {
      taskId,
      signal: entry.controller.signal,
      requestInput: (request, signal) => this.requestInput(taskId, entry, request, signal),
      setStatusMessage: (message) => { this.write(taskId, entry, { statusMessage: message }) }
    }
    // Detached: nothing awaits this promise, so every outcome is recorded here and nothing escapes.
    void (async () => {
      try {
        const result = await work(run)
        this.write(taskId, entry, { status: 'completed', result, inputRequests: undefined })
      } catch (error) {
        // After a cancel or an expiry the status is already final; writing again changes nothing.
        if (!(error instanceof McpError)) this.options.logger.error({ err: error, taskId }, 'task failed')
        const rpc = error instanceof McpError
          ? { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) }
          : { code: ErrorCode.InternalError, message: 'Internal error' }
        this.write(taskId, entry, { status: 'failed', statusMessage: rpc.message, error: rpc, inputRequests: undefined })
      } finally {
        this.stop(taskId, undefined)
      }
    })()
  }

  private requestInput (taskId: string, entry: Running, request: TaskInputRequest, signal: AbortSignal | undefined): Promise<Record<string, unknown>> {
    const abortedBy = [entry.controller.signal, signal].find((s) => s?.aborted === true)
    if (abortedBy !== undefined) return Promise.reject(abortedBy.reason)
    // Keys are unique over the task's life (SEP-2663): a counter never repeats one.
    const key = `input-${entry.nextKey++}`
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        if (!entry.outstanding.delete(key)) return
        reject(signal?.aborted === true ? signal.reason : entry.controller.signal.reason)
        if (!entry.controller.signal.aborted) {
          this.write(taskId, entry, entry.outstanding.size === 0
            ? { status: 'working', inputRequests: undefined }
            : { status: 'input_required', inputRequests: requestsOf(entry) })
        }
      }
      entry.controller.signal.addEventListener('abort', onAbort, { once: true })
      signal?.addEventListener('abort', onAbort, { once: true })
      const cleanup = (): void => {
        entry.controller.signal.removeEventListener('abort', onAbort)
        signal?.removeEventListener('abort', onAbort)
      }
      entry.outstanding.set(key, {
        request,
        resolve: (value) => { cleanup(); resolve(value) },
        reject: (error) => { cleanup(); reject(error) }
      })
      this.write(taskId, entry, { status: 'input_required', inputRequests: requestsOf(entry) })
    })
  }

  /** Ends the local side of a task: aborts its work (when `reason` is given) and forgets it. */
  private stop (taskId: string, reason: unknown): void {
    const entry = this.running.get(taskId)
    if (entry === undefined) return
    this.running.delete(taskId)
    clearTimeout(entry.expiry)
    if (reason !== undefined) entry.controller.abort(reason)
    entry.outstanding.clear()
  }

  /**
   * Queues a store write. What the work produces (a result, a question, an error, a status
   * message) is kept only within the byte bounds: a write past one fails the task instead, with
   * the refusal as its error, and stops its work, whose output has nowhere to go.
   */
  private write (taskId: string, entry: Running, patch: TaskPatch): void {
    if (entry.settled) return
    if (patch.status !== undefined && TERMINAL_STATUSES.has(patch.status)) entry.settled = true
    entry.lane = entry.lane.then(async () => {
      let written = patch
      let task: StoredTask | undefined
      try {
        task = await this.options.store.update(taskId, patch, Date.now(), this.options.limits)
      } catch (error) {
        if (!(error instanceof TaskLimitError)) throw error
        const refusal = storeRefusal(this.options.onLimit, error)
        entry.settled = true
        written = { status: 'failed', statusMessage: refusal.message, error: { code: refusal.code, message: refusal.message, data: refusal.data }, inputRequests: undefined }
        // Small, and lighter than what was refused: written without the bounds.
        task = await this.options.store.update(taskId, written, Date.now())
        this.stop(taskId, refusal)
      }
      // Another process may have finished the task first (a cancel through a shared store): then nothing changed.
      if (task !== undefined && TERMINAL_STATUSES.has(task.status) && task.status !== written.status) return
      if (task !== undefined) for (const listener of this.listeners) listener(task)
    }).catch((error: unknown) => {
      this.options.logger.error({ err: error, taskId }, 'task store update failed')
    })
  }

  private async find (taskId: unknown, owner: string, verb: string): Promise<StoredTask> {
    const task = await this.options.store.get(validTaskId(taskId), owner)
    if (task === undefined) throw new McpError(ErrorCode.InvalidParams, `Failed to ${verb} task: Task not found`)
    return task
  }
}
