import { ScaleUnavailableError } from '../errors.js'
import type { StoredTask, TaskLimits, TaskPatch, TaskStore } from '../protocol/tasks/types.js'

/**
 * A task store filled in later: `MCPServer` builds its core (and the core its task manager) in
 * its constructor, while the Redis engine that holds the shared tasks connects only in
 * `start()`. Nothing reaches the store before start() (no route is served), so the slot is always
 * filled when used; it does not close the store, whose connection is the engine's.
 */
export class TaskStoreSlot implements TaskStore {
  private target: TaskStore | undefined

  fill (store: TaskStore): void {
    this.target = store
  }

  async create (task: StoredTask, limits: TaskLimits): Promise<void> {
    await this.store().create(task, limits)
  }

  async get (taskId: string, owner: string): Promise<StoredTask | undefined> {
    return await this.store().get(taskId, owner)
  }

  async update (taskId: string, patch: TaskPatch, now: number, limits?: TaskLimits): Promise<StoredTask | undefined> {
    return await this.store().update(taskId, patch, now, limits)
  }

  close (): void {}

  private store (): TaskStore {
    /* c8 ignore next: defensive, the server serves nothing before start() fills the slot */
    if (this.target === undefined) throw new ScaleUnavailableError('the server has not started')
    return this.target
  }
}
