import {
  checkTaskBytes, taskBytes, taskClient, taskLimitError, TERMINAL_STATUSES, type StoredTask, type TaskLimits, type TaskPatch, type TaskStore
} from './types.js'

interface Entry {
  task: StoredTask
  timer: NodeJS.Timeout
  /** What the task weighs against the byte bounds (see `taskBytes`). */
  bytes: number
}

/** What one client's tasks hold. */
interface Held {
  count: number
  bytes: number
}

/**
 * Tasks in this process's memory, bounded in count and bytes overall and per client, each dropped
 * when its TTL ends. One unref'd timer per task (rather than a sweep) frees a finished task's
 * result at the moment it expires, and `get` checks the expiry too, so a timer late under load
 * never lets a client read past the TTL.
 */
export class MemoryTaskStore implements TaskStore {
  private readonly tasks = new Map<string, Entry>()
  private readonly perClient = new Map<string, Held>()
  private totalBytes = 0
  private readonly now: () => number

  /** `now` is for tests that move the clock; the default is `Date.now`. */
  constructor (options: { now?: () => number } = {}) {
    this.now = options.now ?? Date.now
  }

  /** Tasks held right now (live and finished, not yet expired). */
  get size (): number {
    return this.tasks.size
  }

  /** Bytes the tasks held right now weigh against the byte bounds. */
  get bytes (): number {
    return this.totalBytes
  }

  create (task: StoredTask, limits: TaskLimits): void {
    if (this.tasks.size >= limits.maxTasks) {
      throw taskLimitError('tasks.maxTasks', limits.maxTasks, `the server holds ${limits.maxTasks} tasks already; retry once some have expired`)
    }
    const client = taskClient(task)
    const held = this.perClient.get(client) ?? { count: 0, bytes: 0 }
    if (held.count >= limits.maxTasksPerOwner) {
      throw taskLimitError('tasks.maxTasksPerPrincipal', limits.maxTasksPerOwner, `this client has ${limits.maxTasksPerOwner} tasks already; retry once some have expired`)
    }
    const stored = { ...task }
    const bytes = taskBytes(stored)
    checkTaskBytes(limits, held.bytes + bytes, this.totalBytes + bytes)
    const timer = setTimeout(() => { this.drop(task.taskId) }, Math.max(0, task.createdAt + task.ttlMs - this.now()))
    timer.unref()
    this.tasks.set(task.taskId, { task: stored, timer, bytes })
    this.perClient.set(client, { count: held.count + 1, bytes: held.bytes + bytes })
    this.totalBytes += bytes
  }

  get (taskId: string, owner: string): StoredTask | undefined {
    const entry = this.live(taskId)
    // Another owner's task is indistinguishable from no task: "not found", never "forbidden".
    return entry === undefined || entry.task.owner !== owner ? undefined : copy(entry.task)
  }

  update (taskId: string, patch: TaskPatch, now: number, limits?: TaskLimits): StoredTask | undefined {
    const entry = this.live(taskId)
    if (entry === undefined) return undefined
    if (TERMINAL_STATUSES.has(entry.task.status)) return copy(entry.task)
    const next = { ...entry.task, ...patch, lastUpdatedAt: now }
    if ('inputRequests' in patch && patch.inputRequests === undefined) delete next.inputRequests
    const bytes = taskBytes(next)
    // Each client has an entry while it holds a task, and this one is live.
    const held = this.perClient.get(taskClient(next)) as Held
    const delta = bytes - entry.bytes
    if (limits !== undefined && delta > 0) checkTaskBytes(limits, held.bytes + delta, this.totalBytes + delta)
    entry.task = next
    entry.bytes = bytes
    held.bytes += delta
    this.totalBytes += delta
    return copy(next)
  }

  close (): void {
    for (const entry of this.tasks.values()) clearTimeout(entry.timer)
    this.tasks.clear()
    this.perClient.clear()
    this.totalBytes = 0
  }

  private live (taskId: string): Entry | undefined {
    const entry = this.tasks.get(taskId)
    if (entry === undefined) return undefined
    if (this.now() >= entry.task.createdAt + entry.task.ttlMs) {
      this.drop(taskId)
      return undefined
    }
    return entry
  }

  private drop (taskId: string): void {
    const entry = this.tasks.get(taskId)
    if (entry === undefined) return
    clearTimeout(entry.timer)
    this.tasks.delete(taskId)
    this.totalBytes -= entry.bytes
    const client = taskClient(entry.task)
    const held = this.perClient.get(client)
    if (held === undefined) return
    if (held.count <= 1) {
      this.perClient.delete(client)
    } else {
      held.count--
      held.bytes -= entry.bytes
    }
  }
}

/** Callers get their own copy: a store's state changes only through `update`. */
function copy (task: StoredTask): StoredTask {
  return task.inputRequests === undefined ? { ...task } : { ...task, inputRequests: { ...task.inputRequests } }
}
