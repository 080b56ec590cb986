import type { ChangeEvent, ChangeListener } from '../changes.js'
import { LIST_CHANGED_METHODS, RESOURCE_UPDATED_METHOD } from '../changes.js'
import { type JsonRpcId } from '../../jsonrpc/messages.js'
import { ErrorCode } from '../../jsonrpc/errors.js'
import type { Caller } from '../caller.js'
import { limitError } from '../limits.js'
import type { ListKind } from '../registry.js'
import type { Session } from '../session.js'
import { detailedTask, type StoredTask } from '../tasks/types.js'
import type { ListenFilter } from './filter.js'
import { listenFrame } from './frame.js'
import { ACKNOWLEDGED_METHOD, ListenSubscription } from './subscription.js'

/** The bounds of listen streams; see the `listen` options for meaning and defaults. */
export interface ListenLimits {
  maxStreams: number
  /** Per client: the principal with auth, the address without (see `Caller.client`). */
  maxStreamsPerPrincipal: number
  maxResourceSubscriptions: number
  /** Bytes of one listen request (filter and `_meta`), held for as long as its stream is open. */
  maxRequestBytes: number
}

/** Defaults of the `listen` options, in one place (the core falls back to them too). */
export const LISTEN_DEFAULTS: Readonly<ListenLimits> = Object.freeze({
  maxStreams: 10_000,
  maxStreamsPerPrincipal: 16,
  maxResourceSubscriptions: 100,
  maxRequestBytes: 65_536
})

/** SEP-2663's task status notification. */
export const TASK_STATUS_METHOD = 'notifications/tasks'

const FLAG_OF: Readonly<Record<ListKind, 'toolsListChanged' | 'resourcesListChanged' | 'promptsListChanged'>> = {
  tools: 'toolsListChanged',
  resources: 'resourcesListChanged',
  prompts: 'promptsListChanged'
}

/**
 * Every open listen stream, indexed by what it listens for, so that a change
 * reaches exactly the streams that asked for it without scanning the others
 * (a resource update touches the streams of that URI only). Enforces the
 * bounds: streams overall, streams per client (its principal with auth, its
 * address without, as sessions are counted).
 */
export class ListenHub implements ChangeListener {
  readonly limits: ListenLimits
  private readonly all = new Set<ListenSubscription>()
  private readonly perClient = new Map<string, number>()
  private readonly byList: Readonly<Record<ListKind, Set<ListenSubscription>>> = { tools: new Set(), resources: new Set(), prompts: new Set() }
  private readonly byUri = new Map<string, Set<ListenSubscription>>()
  private readonly byTask = new Map<string, Set<ListenSubscription>>()

  constructor (limits: ListenLimits) {
    this.limits = limits
  }

  /** Open listen streams. */
  get size (): number {
    return this.all.size
  }

  /**
   * Opens a stream for `filter` (already the honoured subset) on behalf of
   * `caller`: sends the acknowledgement first, then indexes the stream, in one
   * synchronous step so that no change can reach the client before its
   * acknowledgement. The stream is finished (its `complete` result) when the
   * caller's credential stops being valid.
   */
  open (session: Session, requestId: JsonRpcId, filter: ListenFilter, caller: Caller): ListenSubscription {
    const { maxStreams, maxStreamsPerPrincipal } = this.limits
    if (this.all.size >= maxStreams) {
      throw limitError(ErrorCode.InternalError, `Too many listen streams: the server holds at most ${maxStreams}`, 'listen.maxStreams', maxStreams)
    }
    const client = caller.client
    const held = this.perClient.get(client) ?? 0
    if (held >= maxStreamsPerPrincipal) {
      const per = caller.principal === undefined ? 'client address' : 'principal'
      throw limitError(ErrorCode.InternalError, `Too many listen streams: at most ${maxStreamsPerPrincipal} per ${per}`, 'listen.maxStreamsPerPrincipal', maxStreamsPerPrincipal)
    }
    const subscription = new ListenSubscription(session, requestId, filter, client, this.release)
    subscription.notify(ACKNOWLEDGED_METHOD, { notifications: filter })
    this.all.add(subscription)
    this.perClient.set(client, held + 1)
    const validUntil = caller.validUntil
    if (validUntil !== undefined) subscription.finishAt(validUntil)
    for (const list of Object.keys(FLAG_OF) as ListKind[]) {
      if (filter[FLAG_OF[list]] === true) this.byList[list].add(subscription)
    }
    for (const uri of filter.resourceSubscriptions ?? []) index(this.byUri, uri, subscription)
    for (const taskId of filter.taskIds ?? []) index(this.byTask, taskId, subscription)
    return subscription
  }

  deliver (event: ChangeEvent): number {
    const targets = event.kind === 'list_changed' ? this.byList[event.list] : this.byUri.get(event.uri)
    const method = event.kind === 'list_changed' ? LIST_CHANGED_METHODS[event.list] : RESOURCE_UPDATED_METHOD
    return this.send(targets, method, event.params)
  }

  /**
   * `notifications/tasks` (Tasks extension, SEP-2663) to the streams that
   * listed the task: the whole `DetailedTask`, as `tasks/get` would answer it now.
   */
  deliverTask (task: StoredTask): number {
    const targets = this.byTask.get(task.taskId)
    return targets === undefined ? 0 : this.send(targets, TASK_STATUS_METHOD, detailedTask(task))
  }

  private send (targets: Set<ListenSubscription> | undefined, method: string, params: Record<string, unknown> | undefined): number {
    if (targets === undefined || targets.size === 0) return 0
    const frame = listenFrame(method, params)
    let reached = 0
    // A copy: a send may cut off a slow client, which ends its subscription and edits the set.
    for (const subscription of [...targets]) if (subscription.notifyFrame(frame)) reached++
    return reached
  }

  /**
   * Server shutdown: every stream gets its graceful `complete` result.
   * Resolves once each of those answers is handed to its transport, so that
   * a shutdown closing the sessions next does not cut them off.
   */
  async closeAll (): Promise<void> {
    const ending = [...this.all]
    for (const subscription of ending) subscription.finish()
    await Promise.all(ending.map(async (subscription) => { await subscription.settled }))
  }

  private readonly release = (subscription: ListenSubscription): void => {
    if (!this.all.delete(subscription)) return
    const { client, filter } = subscription
    const held = (this.perClient.get(client) ?? 1) - 1
    if (held === 0) this.perClient.delete(client)
    else this.perClient.set(client, held)
    for (const set of Object.values(this.byList)) set.delete(subscription)
    for (const uri of filter.resourceSubscriptions ?? []) unindex(this.byUri, uri, subscription)
    for (const taskId of filter.taskIds ?? []) unindex(this.byTask, taskId, subscription)
  }
}

function index (map: Map<string, Set<ListenSubscription>>, key: string, subscription: ListenSubscription): void {
  let set = map.get(key)
  if (set === undefined) map.set(key, set = new Set())
  set.add(subscription)
}

function unindex (map: Map<string, Set<ListenSubscription>>, key: string, subscription: ListenSubscription): void {
  const set = map.get(key)
  set?.delete(subscription)
  if (set?.size === 0) map.delete(key)
}
