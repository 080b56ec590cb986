import type { ScaleLogger } from '../../ports.js'
import { bounded, type RedisPort } from '../client.js'
import type { Keys } from '../keys.js'

/** Heartbeats an instance may miss before the others count it dead. */
export const MISSED_BEATS = 3
/** An inbox nobody reads (its instance is gone) expires after this long without a heartbeat. */
const INBOX_TTL_MS = 60_000

export interface LivenessOptions {
  self: string
  heartbeatMs: number
  /** Longest wait for a live-set read a request is waiting on (`redisTimeoutMs`). */
  timeoutMs: number
}

/**
 * Which instances are alive: this instance's heartbeat in the shared live set (on Redis' clock),
 * its view of that set, refreshed at each beat, and the death watches it judges after each beat.
 */
export class Liveness {
  private live = new Set<string>()
  private keepLiveUntil = 0
  /** Instances someone waits on to learn of their death, and who waits. */
  private readonly watched = new Map<string, Set<() => void>>()
  private heartbeat: NodeJS.Timeout | undefined
  private beating = false
  /** Beats made, for the inboxes extended every few beats. */
  private beats = 0
  /** Beats left during which nobody is judged dead (see `beat`). */
  private grace = 0
  private stopped = false

  constructor (
    private readonly cmd: RedisPort,
    private readonly keys: Keys,
    private readonly options: LivenessOptions,
    private readonly log: ScaleLogger
  ) {}

  /**
   * Beats once, then every `heartbeatMs`. With several bus shards, first takes the home shard the
   * fewest live instances have (where this instance writes its fan-out, keeping it in order), and
   * resolves with it; 0 with one shard.
   */
  async start (): Promise<number> {
    const home = this.keys.shards === 1 ? 0 : Number(await this.cmd.script('mcpJoin', [this.keys.live, this.keys.homes], [this.options.self, this.keys.shards]))
    await this.beat()
    this.heartbeat = setInterval(() => { void this.beat() }, this.options.heartbeatMs)
    this.heartbeat.unref()
    return home
  }

  alive (instance: string): boolean {
    return instance === this.options.self || this.live.has(instance)
  }

  /** An entry from `instance` was read: it is alive, even if it started after the last beat read the live set. */
  heard (instance: string): void {
    this.live.add(instance)
  }

  async checkAlive (instance: string): Promise<boolean> {
    if (instance === this.options.self) return true
    const alive = await bounded(this.cmd, this.options.timeoutMs, async () => await this.cmd.script('mcpAlive', [this.keys.live], [instance])) === 1
    if (alive) this.live.add(instance)
    else this.live.delete(instance)
    return alive
  }

  watchDeath (instance: string, onDead: () => void): () => void {
    let handlers = this.watched.get(instance)
    if (handlers === undefined) {
      handlers = new Set()
      this.watched.set(instance, handlers)
    }
    // A fresh function each time: the same handler watched twice is two watches.
    const handler = (): void => { onDead() }
    handlers.add(handler)
    return () => {
      const current = this.watched.get(instance)
      current?.delete(handler)
      if (current?.size === 0) this.watched.delete(instance)
    }
  }

  /**
   * Redis came back empty: its live set too. Until every instance has beaten again, the instances
   * known alive before stay alive here (the first beat after the restart would otherwise see only
   * those that beat before it, and a legacy POST for another's session would be answered 404).
   */
  restarted (): void {
    this.keepLiveUntil = Date.now() + this.options.heartbeatMs * MISSED_BEATS
    void this.beat()
  }

  /** Stops beating and watching (synchronously), then leaves the live set. */
  async stop (): Promise<void> {
    this.stopped = true
    clearInterval(this.heartbeat)
    this.watched.clear()
    // Leave the live set at once rather than after MISSED_BEATS: nobody waits on us any more.
    if (this.cmd.ready) await this.cmd.script('mcpLeave', [this.keys.live], [this.options.self]).catch(() => {})
  }

  private async beat (): Promise<void> {
    // One beat at a time, and none queued while Redis is away: the first after it is back counts.
    if (this.beating || this.stopped || !this.cmd.ready) return
    this.beating = true
    try {
      const { self, heartbeatMs } = this.options
      const ttl = heartbeatMs * MISSED_BEATS
      const inboxTtl = Math.max(INBOX_TTL_MS, ttl)
      const reply = await this.cmd.script('mcpBeat', [this.keys.live, this.keys.inbox(self, 0)], [self, ttl, inboxTtl])
      // The inboxes of the other shards are in other slots (on a Cluster, other primaries): extended
      // by commands of their own, often enough that each lives at least twice the interval.
      if (this.beats++ % Math.max(1, Math.floor(inboxTtl / (2 * heartbeatMs))) === 0) {
        for (let shard = 1; shard < this.keys.shards; shard++) void this.cmd.pexpire(this.keys.inbox(self, shard), inboxTtl).catch(() => {})
      }
      const [registered, live] = reply as [number, string[]]
      const fresh = new Set(live)
      if (Date.now() < this.keepLiveUntil) for (const instance of this.live) fresh.add(instance)
      this.live = fresh
      // This instance was not registered (its first beat, a Redis restarted empty, or Redis away
      // for a whole expiry): neither may the others be, for the same reason. They get a whole
      // expiry to beat again before anyone is judged dead.
      if (registered !== 1) this.grace = MISSED_BEATS
      this.judge()
    } catch {
      // Redis went away mid-beat: the next beat after the reconnect registers us again.
    } finally {
      this.beating = false
    }
  }

  /**
   * After a beat read the live set: a watched instance missing from it is dead (its heartbeat
   * expired on Redis' clock, or it left), unless this instance is in its grace after finding
   * itself unregistered.
   */
  private judge (): void {
    if (this.grace > 0) {
      this.grace--
      return
    }
    for (const [instance, handlers] of [...this.watched]) {
      if (instance === this.options.self || this.live.has(instance)) continue
      this.watched.delete(instance)
      for (const handler of handlers) {
        try {
          handler()
        } catch (error) {
          this.log.error({ err: error }, 'scale-out: a death watcher threw')
        }
      }
    }
  }
}
