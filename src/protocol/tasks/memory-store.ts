import { TaskLimitError } from '../../errors.js'
import { TERMINAL_STATUSES, type StoredTask, type TaskLimits, type TaskPatch, type TaskStore } from './types.js'

interface Entry {
  task: StoredTask
  timer: NodeJS.Timeout
}

/**
 * Tasks in this process's memory, bounded overall and per owner, each dropped
 * when its TTL ends. One unref'd timer per task (rather than a sweep) frees a
 * finished task's result at the moment it expires, and `get` checks the expiry
 * too, so a timer late under load never lets a client read past the TTL.
 */
export class MemoryTaskStore implements TaskStore {
  private readonly tasks = new Map<string, Entry>()
  private readonly perOwner = new Map<string, number>()
  private readonly now: () => number

  /** `now` is for tests that move the clock; the default is `Date.now`. */
  constructor (options: { now?: () => number } = {}) {
    this.now = options.now ?? Date.now
  }

  /** Tasks held right now (live and finished, not yet expired). */
  get size (): number {
    return this.tasks.size
  }

  create (task: StoredTask, limits: TaskLimits): void {
    if (this.tasks.size >= limits.maxTasks) {
      throw new TaskLimitError(`the server holds ${limits.maxTasks} tasks already; retry once some have expired`)
    }
    const owned = this.perOwner.get(task.owner) ?? 0
    if (owned >= limits.maxTasksPerOwner) {
      throw new TaskLimitError(`this client has ${limits.maxTasksPerOwner} tasks already; retry once some have expired`)
    }
    const timer = setTimeout(() => { this.drop(task.taskId) }, Math.max(0, task.createdAt + task.ttlMs - this.now()))
    timer.unref()
    this.tasks.set(task.taskId, { task: { ...task }, timer })
    this.perOwner.set(task.owner, owned + 1)
  }

  get (taskId: string, owner: string): StoredTask | undefined {
    const entry = this.live(taskId)
    // Another owner's task is indistinguishable from no task: "not found", never "forbidden".
    return entry === undefined || entry.task.owner !== owner ? undefined : copy(entry.task)
  }

  update (taskId: string, patch: TaskPatch, now: number): StoredTask | undefined {
    const entry = this.live(taskId)
    if (entry === undefined) return undefined
    if (TERMINAL_STATUSES.has(entry.task.status)) return copy(entry.task)
    entry.task = { ...entry.task, ...patch, lastUpdatedAt: now }
    if ('inputRequests' in patch && patch.inputRequests === undefined) delete entry.task.inputRequests
    return copy(entry.task)
  }

  close (): void {
    for (const entry of this.tasks.values()) clearTimeout(entry.timer)
    this.tasks.clear()
    this.perOwner.clear()
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
    const owned = (this.perOwner.get(entry.task.owner) ?? 1) - 1
    if (owned > 0) this.perOwner.set(entry.task.owner, owned)
    else this.perOwner.delete(entry.task.owner)
  }
}

/** Callers get their own copy: a store's state changes only through `update`. */
function copy (task: StoredTask): StoredTask {
  return task.inputRequests === undefined ? { ...task } : { ...task, inputRequests: { ...task.inputRequests } }
}
