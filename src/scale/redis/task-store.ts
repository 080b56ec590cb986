import { createHash } from 'node:crypto'
import { TaskLimitError } from '../../errors.js'
import { TERMINAL_STATUSES, type StoredTask, type TaskLimits, type TaskPatch, type TaskStore } from '../../protocol/tasks/types.js'
import { bounded, type RedisPort } from './client.js'
import type { Keys } from './keys.js'

/** Attempts of an update that keeps losing to concurrent ones before it gives up. */
const SWAP_ATTEMPTS = 16

/**
 * Tasks in Redis, so that any instance answers `tasks/get` and `tasks/cancel`, with the semantics
 * of MemoryTaskStore: bounded overall and per owner (zsets of task ids scored by expiry, pruned on
 * each create), each task gone at `createdAt + ttlMs` (the key's PX, and `get` checks the time too),
 * another owner's task is "not found", and the first terminal status wins.
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
    const keys = [this.keys.task(task.taskId), this.keys.tasks, this.keys.ownerTasks(digest(task.owner))]
    const outcome = await this.call(() => this.redis.script('mcpTaskCreate', keys,
      [JSON.stringify(task), Math.max(1, expiresAt - now), expiresAt, now, limits.maxTasks, limits.maxTasksPerOwner, task.taskId]))
    if (outcome === 1) throw new TaskLimitError(`the server holds ${limits.maxTasks} tasks already; retry once some have expired`)
    if (outcome === 2) throw new TaskLimitError(`this client has ${limits.maxTasksPerOwner} tasks already; retry once some have expired`)
  }

  async get (taskId: string, owner: string): Promise<StoredTask | undefined> {
    const task = this.live(await this.call(() => this.redis.get(this.keys.task(taskId))))
    // Another owner's task is indistinguishable from no task: "not found", never "forbidden".
    return task === undefined || task.owner !== owner ? undefined : task
  }

  async update (taskId: string, patch: TaskPatch, now: number): Promise<StoredTask | undefined> {
    const key = this.keys.task(taskId)
    for (let attempt = 0; attempt < SWAP_ATTEMPTS; attempt++) {
      const read = await this.call(() => this.redis.get(key))
      const task = this.live(read)
      if (task === undefined || read === null) return undefined
      if (TERMINAL_STATUSES.has(task.status)) return task
      const next: StoredTask = { ...task, ...patch, lastUpdatedAt: now }
      if ('inputRequests' in patch && patch.inputRequests === undefined) delete next.inputRequests
      if (await this.call(() => this.redis.script('mcpTaskSwap', [key], [read, JSON.stringify(next)])) === 1) return next
    }
    /* c8 ignore next: sixteen concurrent writers in a row on one task */
    throw new Error(`task ${taskId}: too many concurrent updates`)
  }

  /** The connection belongs to the engine, which closes it. */
  async close (): Promise<void> {}

  private live (json: string | null): StoredTask | undefined {
    if (json === null) return undefined
    const task = JSON.parse(json) as StoredTask
    return this.now() >= task.createdAt + task.ttlMs ? undefined : task
  }

  private async call<T> (command: () => Promise<T>): Promise<T> {
    return await bounded(this.redis, this.timeoutMs, command)
  }
}

/** Owner keys are JSON arrays of the identity: hashed into a short, key-safe name. */
function digest (owner: string): string {
  return createHash('sha256').update(owner).digest('base64url').slice(0, 22)
}
