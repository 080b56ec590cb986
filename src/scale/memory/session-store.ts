import type { GatewayClaim, SessionRecord, SessionStore, StoredSession } from '../ports.js'

/** Stream-0 messages kept per session for a resuming stream (oldest dropped first). */
const DEFAULT_LOG_SIZE = 1000

interface Held {
  record: SessionRecord
  gateway: string | undefined
  timer: NodeJS.Timeout
  /** Stream-0 log: what a gateway moving to another instance replays from. */
  log: Array<{ position: string, json: string }>
}

/**
 * Session records in this process, shared by every instance of one {@link MemoryHub} (several
 * Fastify apps in one process: the routing tests, or one app that wants the scale-out paths
 * without Redis). Idle expiry is a TTL, as in Redis: one unref'd timer per record, re-armed by
 * `touch`. The store also keeps each session's stream-0 log, because `deliver0` must read the
 * gateway and append to that log in one step (in Redis: one script over both keys).
 */
export class MemorySessionStore implements SessionStore {
  private readonly held = new Map<string, Held>()
  private readonly logSize: number
  private counter = 0

  constructor (options: { logSize?: number } = {}) {
    this.logSize = options.logSize ?? DEFAULT_LOG_SIZE
  }

  async create (record: SessionRecord, ttlMs: number): Promise<void> {
    this.forget(record.id)
    this.held.set(record.id, { record, gateway: undefined, timer: this.expireIn(record.id, ttlMs), log: [] })
  }

  async get (id: string): Promise<StoredSession | undefined> {
    const held = this.held.get(id)
    if (held === undefined) return undefined
    return held.gateway === undefined ? { record: held.record } : { record: held.record, gateway: held.gateway }
  }

  async update (id: string, patch: Partial<Omit<SessionRecord, 'id' | 'kind' | 'principal'>>): Promise<boolean> {
    const held = this.held.get(id)
    if (held === undefined) return false
    held.record = { ...held.record, ...patch }
    return true
  }

  async touch (id: string, ttlMs: number): Promise<boolean> {
    const held = this.held.get(id)
    if (held === undefined) return false
    clearTimeout(held.timer)
    held.timer = this.expireIn(id, ttlMs)
    return true
  }

  async claimGateway (id: string, instance: string): Promise<GatewayClaim | undefined> {
    const held = this.held.get(id)
    if (held === undefined) return undefined
    const previous = held.gateway
    held.gateway = instance
    return { previous, tail: held.log.at(-1)?.position ?? '0' }
  }

  async restore (record: SessionRecord, ttlMs: number, gateway: string | undefined): Promise<void> {
    const held = this.held.get(record.id)
    if (held === undefined) this.held.set(record.id, { record, gateway, timer: this.expireIn(record.id, ttlMs), log: [] })
    else held.gateway ??= gateway
  }

  async delete (id: string): Promise<void> {
    this.forget(id)
  }

  async close (): Promise<void> {
    for (const id of [...this.held.keys()]) this.forget(id)
  }

  /** Sessions held (for tests: nothing must outlive a DELETE or an expiry). */
  get size (): number {
    return this.held.size
  }

  /**
   * `deliver0`'s step, synchronous so that it is atomic against `claimGateway`: appends to the log
   * and names the gateway, or does nothing when no gateway ever held the session.
   */
  appendLog0 (id: string, json: string): { position: string, gateway: string } | undefined {
    const held = this.held.get(id)
    if (held?.gateway === undefined) return undefined
    const position = String(++this.counter)
    held.log.push({ position, json })
    if (held.log.length > this.logSize) held.log.shift()
    return { position, gateway: held.gateway }
  }

  log0After (id: string, position: string): Array<{ position: string, json: string }> {
    const log = this.held.get(id)?.log ?? []
    const after = Number(position)
    return log.filter((entry) => Number(entry.position) > after)
  }

  private expireIn (id: string, ttlMs: number): NodeJS.Timeout {
    const timer = setTimeout(() => { this.forget(id) }, ttlMs)
    timer.unref()
    return timer
  }

  private forget (id: string): void {
    const held = this.held.get(id)
    if (held === undefined) return
    clearTimeout(held.timer)
    this.held.delete(id)
  }
}
