import { createHash } from 'node:crypto'
import {
  taskBytes, taskBytesError, taskClient, taskLimitError, TERMINAL_STATUSES, type StoredTask, type TaskLimits, type TaskPatch, type TaskStore
} from '../../protocol/tasks/types.js'
import { bounded, type RedisPort } from './client.js'
import type { Keys } from './keys.js'

/** Attempts of an update that keeps losing to concurrent ones before it gives up. */
const SWAP_ATTEMPTS = 16

/** A byte bound not given: unbounded, for the scripts. */
const UNBOUNDED = -1

/**
 * Tasks in Redis, so that any instance answers `tasks/get` and `tasks/cancel`, with the semantics
 * of MemoryTaskStore: bounded in count and bytes overall and per client (zsets of task ids scored
 * by expiry and hashes of their weights, pruned by the scripts), each task gone at
 * `createdAt + ttlMs` (the key's PX, and `get` checks the time too), another owner's task is
 * "not found", and the first terminal status wins.
 *
 * A task is one JSON string. `update` is compare-and-swap (read, patch here, swap if unchanged):
 * Lua's cjson would re-encode a tool's result (`[]` becomes `{}`), so JSON never goes through it.
 */
export class RedisTaskStore implements TaskStore {
  private readonly now: () => number

  constructor (private readonly redis: RedisPort, private readonly keys: Keys, private readonly timeoutMs: number, options: { now?: () => number } = {}) {
    this.now = options.now ?? Date.now
  }

  async create (task: StoredTask, limits: TaskLimits): Promise<void> {
    const now = this.now()
    const expiresAt = task.createdAt + task.ttlMs
    const json = JSON.stringify(task)
    const outcome = await this.call(() => this.redis.script('mcpTaskCreate', this.booksOf(task.taskId, task), [
      json, Math.max(1, expiresAt - now), expiresAt, now, limits.maxTasks, limits.maxTasksPerOwner, task.taskId,
      taskBytes(task, json), limits.maxBytes ?? UNBOUNDED, limits.maxBytesPerOwner ?? UNBOUNDED
    ]))
    switch (outcome) {
      case 1: throw taskLimitError('tasks.maxTasks', limits.maxTasks, `the server holds ${limits.maxTasks} tasks already; retry once some have expired`)
      case 2: throw taskLimitError('tasks.maxTasksPerPrincipal', limits.maxTasksPerOwner, `this client has ${limits.maxTasksPerOwner} tasks already; retry once some have expired`)
      case 3: throw taskBytesError('tasks.maxBytes', limits)
      case 4: throw taskBytesError('tasks.maxBytesPerPrincipal', limits)
    }
  }

  async get (taskId: string, owner: string): Promise<StoredTask | undefined> {
    const task = this.live(await this.call(() => this.redis.get(this.keys.task(taskId))))
    // Another owner's task is indistinguishable from no task: "not found", never "forbidden".
    return task === undefined || task.owner !== owner ? undefined : task
  }

  async update (taskId: string, patch: TaskPatch, now: number, limits?: TaskLimits): Promise<StoredTask | undefined> {
    const key = this.keys.task(taskId)
    for (let attempt = 0; attempt < SWAP_ATTEMPTS; attempt++) {
      const read = await this.call(() => this.redis.get(key))
      const task = this.live(read)
      if (task === undefined || read === null) return undefined
      if (TERMINAL_STATUSES.has(task.status)) return task
      const next: StoredTask = { ...task, ...patch, lastUpdatedAt: now }
      if ('inputRequests' in patch && patch.inputRequests === undefined) delete next.inputRequests
      const json = JSON.stringify(next)
      const outcome = await this.call(() => this.redis.script('mcpTaskSwap', this.booksOf(taskId, task), [
        read, json, taskId, taskBytes(next, json), limits?.maxBytes ?? UNBOUNDED, limits?.maxBytesPerOwner ?? UNBOUNDED, this.now(), limits === undefined ? 0 : 1
      ]))
      if (outcome === 1) return next
      if (outcome === 2) throw taskBytesError('tasks.maxBytes', limits)
      if (outcome === 3) throw taskBytesError('tasks.maxBytesPerPrincipal', limits)
    }
    /* c8 ignore next: sixteen concurrent writers in a row on one task */
    throw new Error(`task ${taskId}: too many concurrent updates`)
  }

  /** The connection belongs to the engine, which closes it. */
  async close (): Promise<void> {}

  /** The task's key and the books it is counted in: every task's, and its client's. */
  private booksOf (taskId: string, task: StoredTask): string[] {
    const client = digest(taskClient(task))
    return [this.keys.task(taskId), this.keys.tasks, this.keys.ownerTasks(client), this.keys.taskBytes, this.keys.ownerTaskBytes(client)]
  }

  private live (json: string | null): StoredTask | undefined {
    if (json === null) return undefined
    const task = JSON.parse(json) as StoredTask
    return this.now() >= task.createdAt + task.ttlMs ? undefined : task
  }

  private async call<T> (command: () => Promise<T>): Promise<T> {
    return await bounded(this.redis, this.timeoutMs, command)
  }
}

/** Client keys are an identity's JSON or an address: hashed into a short, key-safe name. */
function digest (client: string): string {
  return createHash('sha256').update(client).digest('base64url').slice(0, 22)
}
