import { TaskLimitError } from '../../errors.js'
import type { ErrorLogger } from '../../util/logger.js'

/**
 * The Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663): a tools/call
 * may answer with a task handle the client polls with `tasks/get` instead of
 * the result. These are the shapes on the wire and the port a task store
 * implements; the store holds what clients observe, the {@link TaskManager}
 * runs the work.
 */

/** The extension's identifier, as declared in capabilities. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks'

/** Defaults of the `tasks` option (also used when a core is built without it). */
export const TASK_DEFAULTS = {
  ttlMs: 3_600_000,
  pollIntervalMs: 1000,
  maxTasks: 10_000,
  maxTasksPerPrincipal: 100,
  maxBytes: 268_435_456,
  maxBytesPerPrincipal: 16_777_216
} as const

/** `working` and `input_required` are live; the other three are terminal and never change again. */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled'

export const TERMINAL_STATUSES: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled'])

/** How a tool runs when a client calls it (`execution.taskSupport` of its definition). */
export type TaskSupport = 'forbidden' | 'optional' | 'required'
/** When a task call becomes a task: see `ToolExecution.taskStart`. */
export type TaskStart = 'call' | 'handler'

/** One server-to-client request a task waits for (`elicitation/create`, `sampling/createMessage`, `roots/list`). */
export interface TaskInputRequest {
  method: string
  params?: Record<string, unknown>
}

/**
 * A task as a store keeps it. Plain JSON (no class instances, no functions) so
 * a store may serialize it as it likes. Times are epoch milliseconds; the wire
 * shape (ISO 8601 strings) is made from them.
 */
export interface StoredTask {
  taskId: string
  /** Who may see the task: an opaque key derived from the principal (see `ownerKey`). */
  owner: string
  /**
   * The tool the task runs: its access rule is checked again on each `tasks/get`, `tasks/update` and
   * `tasks/cancel`, with the credential of that request. Absent in tasks stored by older releases.
   */
  tool?: string
  /**
   * Who the task counts against for the per-client bounds (`maxTasksPerOwner`, `maxBytesPerOwner`):
   * the caller's identity with auth, its address without, so that anonymous callers, who all own
   * their tasks as one owner, each have their own quota. Absent: the owner.
   */
  client?: string
  /**
   * Bytes of the request that started the task, which its work holds while it runs: counted
   * against the byte bounds until the task ends. Absent: 0.
   */
  inputBytes?: number
  status: TaskStatus
  statusMessage?: string
  createdAt: number
  lastUpdatedAt: number
  /** Lifetime from creation, in milliseconds; the task is gone after `createdAt + ttlMs`. */
  ttlMs: number
  /** Suggested interval between two `tasks/get`, in milliseconds. */
  pollIntervalMs: number
  /** Outstanding requests to the client while `input_required`, by key. */
  inputRequests?: Record<string, TaskInputRequest>
  /** The request's result, once `completed`. */
  result?: Record<string, unknown>
  /** The JSON-RPC error, once `failed`. */
  error?: { code: number, message: string, data?: unknown }
}

/** A change to a live task. `inputRequests: undefined` (key present) clears them. */
export type TaskPatch = Partial<Pick<StoredTask, 'status' | 'statusMessage' | 'inputRequests' | 'result' | 'error'>>

/**
 * Bounds a store enforces: counts when it creates a task, bytes (see {@link taskBytes}) when it
 * creates one and when an update given these limits makes one heavier.
 */
export interface TaskLimits {
  /** Tasks kept at once, all owners together. */
  maxTasks: number
  /** Tasks kept at once for one client (`StoredTask.client`, else the owner). */
  maxTasksPerOwner: number
  /** Bytes of the tasks kept at once, all clients together; absent: unbounded. */
  maxBytes?: number | undefined
  /** Bytes of the tasks kept at once for one client; absent: unbounded. */
  maxBytesPerOwner?: number | undefined
}

/** The option each bound of {@link TaskLimits} comes from: `data.limit` of a refusal, and its telemetry label. */
export type TaskLimitName = 'tasks.maxTasks' | 'tasks.maxTasksPerPrincipal' | 'tasks.maxBytes' | 'tasks.maxBytesPerPrincipal'

/** A store's refusal (`FST_MCP_TASK_LIMIT`), naming the bound in `limit` and its value in `max`. */
export type TaskLimitRefusal = ReturnType<typeof TaskLimitError> & { limit: TaskLimitName, max: number }

export function taskLimitError (limit: TaskLimitName, max: number, reason: string): TaskLimitRefusal {
  return Object.assign(new TaskLimitError(reason), { limit, max })
}

/** Who a task counts against: its client, else its owner. */
export function taskClient (task: StoredTask): string {
  return task.client ?? task.owner
}

/**
 * What a task weighs against the byte bounds: the UTF-8 length of its JSON (`json`, when the
 * store has it already), plus the request its work holds while it is live.
 */
export function taskBytes (task: StoredTask, json = JSON.stringify(task)): number {
  return Buffer.byteLength(json) + (TERMINAL_STATUSES.has(task.status) ? 0 : task.inputBytes ?? 0)
}

/**
 * Throws the refusal when a write would cross a byte bound: `client` would hold `clientBytes`,
 * every client together `allBytes`.
 */
export function checkTaskBytes (limits: TaskLimits, clientBytes: number, allBytes: number): void {
  if (limits.maxBytesPerOwner !== undefined && clientBytes > limits.maxBytesPerOwner) throw taskBytesError('tasks.maxBytesPerPrincipal', limits)
  if (limits.maxBytes !== undefined && allBytes > limits.maxBytes) throw taskBytesError('tasks.maxBytes', limits)
}

/** The refusal past a byte bound of `limits`, worded the same by every store. */
export function taskBytesError (limit: 'tasks.maxBytes' | 'tasks.maxBytesPerPrincipal', limits: TaskLimits | undefined): TaskLimitRefusal {
  if (limit === 'tasks.maxBytes') {
    const max = limits?.maxBytes ?? 0
    return taskLimitError(limit, max, `the tasks kept would weigh more than ${max} bytes (tasks.maxBytes); retry once some have expired`)
  }
  const max = limits?.maxBytesPerOwner ?? 0
  return taskLimitError(limit, max, `this client's tasks would weigh more than ${max} bytes (tasks.maxBytesPerPrincipal); retry once some have expired`)
}

/**
 * Where tasks live between polls. The built-in {@link MemoryTaskStore} keeps
 * them in this process; a shared store (Redis, a database) lets another
 * instance answer `tasks/get`. The work itself always runs in the process that
 * created the task, which is why SEP-2663 has clients send the task id in
 * `Mcp-Name`: a balancer can route by it.
 *
 * Every method may be async. A store never returns another owner's task and
 * never returns an expired one: both are "not found".
 */
export interface TaskStore {
  /**
   * Stores a new task. Resolves only once `get` finds it (SEP-2663 requires the
   * task to exist before its handle is returned). Rejects with
   * `TaskLimitError` (`FST_MCP_TASK_LIMIT`) when a bound of `limits` is reached:
   * counts and bytes per client (`StoredTask.client`, else the owner) and overall.
   */
  create: (task: StoredTask, limits: TaskLimits) => Promise<void> | void
  /** The task with this id if it belongs to `owner` and has not expired. */
  get: (taskId: string, owner: string) => Promise<StoredTask | undefined> | StoredTask | undefined
  /**
   * Applies `patch` to a live task and sets `lastUpdatedAt` to `now`. A terminal
   * task is never changed (the first terminal status wins). Resolves with the
   * task as stored afterwards, or undefined when it is gone. With `limits`, rejects
   * with `TaskLimitError`, changing nothing, when the patched task would weigh more
   * and cross a byte bound (a result too large to keep).
   */
  update: (taskId: string, patch: TaskPatch, now: number, limits?: TaskLimits) => Promise<StoredTask | undefined> | StoredTask | undefined
  /** Releases timers and connections. Called once when the server stops. */
  close: () => Promise<void> | void
}

/** The task fields every wire shape carries (`Task` in SEP-2663). */
export function taskFields (task: StoredTask): Record<string, unknown> {
  const wire: Record<string, unknown> = {
    taskId: task.taskId,
    status: task.status,
    createdAt: new Date(task.createdAt).toISOString(),
    lastUpdatedAt: new Date(task.lastUpdatedAt).toISOString(),
    ttlMs: task.ttlMs,
    pollIntervalMs: task.pollIntervalMs
  }
  if (task.statusMessage !== undefined) wire.statusMessage = task.statusMessage
  return wire
}

/** `DetailedTask`: the task with what its status carries (result, error or input requests). */
export function detailedTask (task: StoredTask): Record<string, unknown> {
  const wire = taskFields(task)
  if (task.status === 'completed' && task.result !== undefined) wire.result = task.result
  else if (task.status === 'failed' && task.error !== undefined) wire.error = task.error
  else if (task.status === 'input_required') wire.inputRequests = task.inputRequests ?? {}
  return wire
}

/** What a {@link TaskManager} is built with. */
export interface TaskManagerOptions {
  store: TaskStore
  /** Whether `close()` also closes the store (true for the built-in one; a store the app passed in is the app's). */
  ownsStore: boolean
  ttlMs: number
  pollIntervalMs: number
  limits: TaskLimits
  logger: ErrorLogger
  /** Told of every refusal past a bound (`tasks.maxTasks`...), for telemetry. */
  onLimit?: ((limit: string) => void) | undefined
}
