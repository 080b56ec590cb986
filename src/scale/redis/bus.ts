import { randomBytes } from 'node:crypto'
import { ScaleUnavailableError } from '../../errors.js'
import type { ScaleLogger } from '../ports.js'
import type { Bus, ControlMessage, DirectMessage, Envelope, FanoutMessage, WriteOptions } from '../ports.js'
import { bounded, type RedisPort, type StreamEntry } from './client.js'
import type { Keys } from './keys.js'

/** Entries kept in an inbox and in the control stream (MAXLEN ~): a reader further behind loses. */
const INBOX_LENGTH = 10_000
/** How long one XREAD blocks; only bounds how late the loop notices `close()` if Redis hangs. */
const BLOCK_MS = 5000
/** Entries taken per XREAD. */
const READ_COUNT = 1000
/** Pause before reading again after a failed XREAD (the connection is being re-established). */
const RETRY_MS = 100
/** Heartbeats an instance may miss before the others count it dead. */
const MISSED_BEATS = 3
/** An inbox nobody reads (its instance is gone) expires after this long without a heartbeat. */
const INBOX_TTL_MS = 60_000
/** Bytes of message JSON kept for writing again after a Redis restart (see `recent`). */
const RESEND_BYTES = 16 * 1024 * 1024

export interface RedisBusOptions {
  self: string
  heartbeatMs: number
  /** Bus writes waiting for Redis at most; past it a write is refused (counted, logged once). */
  outboxLimit: number
  /** Fan-out messages kept for resuming streams (MAXLEN ~). */
  broadcastHistory: number
  /** The stream-0 log's bounds and lifetime: those of the session's event store. */
  maxEvents: number
  maxBytes: number
  ttlMs: number
  /** Longest wait for a read a request is waiting on (a stream-0 resume), `redisTimeoutMs`. */
  timeoutMs: number
}

type Channel = 'direct' | 'control' | 'fanout'

/**
 * The bus over Redis Streams (not pub/sub: a reader that reconnects after a Redis outage goes on
 * from its cursor, where a subscriber would have lost what was published meanwhile). Each
 * instance has an inbox stream; the control and fan-out streams are shared. One XREAD BLOCK on a
 * connection of its own reads all three, from cursors kept in this object: across reconnects,
 * and across a Redis restart without persistence too, since new entry ids sort after the old ones.
 *
 * Writes go through ioredis' queue in order, and those unanswered when a connection drops are
 * re-sent after it is back, so a write can reach Redis twice. Each entry carries its sender
 * (`f`), the sender's boot (`b`: a restarted instance may reuse its id) and a sequence number
 * (`n`) increasing over all the sender's writes, and a reader drops what it has seen already.
 *
 * A Redis restarted empty also loses what it had acknowledged and a reader had yet to read (a
 * forwarded POST answered 202 would never run, its client waiting forever). So each instance keeps
 * what Redis acknowledged in the last three heartbeats before the connection dropped (a reader
 * further behind than that counts as dead anyway) and, once it
 * knows Redis restarted empty, writes it again, each copy naming the copy it replaces (`o`). A
 * reader takes a copy unless it had read that sequence number or a later one of the same sender
 * before its own connection dropped (it reads each stream in order, so that is exactly what it read).
 */
export class RedisBus implements Bus {
  readonly self: string
  private readonly boot = randomBytes(6).toString('base64url')
  private seq = 0
  private readonly cursors: Record<Channel, string> = { direct: '0-0', control: '0-0', fanout: '0-0' }
  private readonly seen = new Map<string, number>()
  private readonly handlers: { [C in Channel]: Array<(envelope: Envelope<never>) => void> } = { direct: [], control: [], fanout: [] }
  private live = new Set<string>()
  private keepLiveUntil = 0
  /** Instances someone waits on to learn of their death, and who waits. */
  private readonly watched = new Map<string, Set<() => void>>()
  private inflight = 0
  private refused = 0
  private unsent = 0
  private closed = false
  private heartbeat: NodeJS.Timeout | undefined
  private beating = false
  /** Beats left during which nobody is judged dead (see `beat`). */
  private grace = 0
  private reading: Promise<void> | undefined
  /**
   * Writes Redis acknowledged lately (within three heartbeats, at most `outboxLimit` of them and
   * RESEND_BYTES of JSON): what a reader may not have read yet if Redis dies now.
   */
  private recent: Acknowledged[] = []
  /** Index of the oldest entry of `recent` still kept (dropped ones are spliced away in batches). */
  private recentStart = 0
  private recentBytes = 0
  /** What `recent` held when the connection dropped: written again if Redis turns out to have restarted empty. */
  private unconfirmed: Acknowledged[] = []
  /** Per sender, what this reader had read before its connection dropped (a copy of `seen`). */
  private readBefore = new Map<string, number>()

  constructor (
    private readonly cmd: RedisPort,
    private readonly reader: RedisPort,
    private readonly keys: Keys,
    private readonly options: RedisBusOptions,
    private readonly log: ScaleLogger
  ) {
    this.self = options.self
    // The connections' 'close' comes once per drop while they were up (and again per failed
    // attempt, with nothing new to note): what was acknowledged, and what was read, until then.
    cmd.on('close', () => {
      if (this.recent.length === this.recentStart) return
      const since = Date.now() - this.options.heartbeatMs * MISSED_BEATS
      const kept = this.recent.slice(this.recentStart).filter((write) => write.at >= since)
      // Several drops before Redis is checked again: the newest `outboxLimit`.
      this.unconfirmed = [...this.unconfirmed, ...kept].slice(-this.options.outboxLimit)
      this.recent = []
      this.recentStart = 0
      this.recentBytes = 0
    })
    let reading = true
    reader.on('ready', () => { reading = true })
    reader.on('close', () => {
      if (!reading) return
      reading = false
      this.readBefore = new Map(this.seen)
    })
  }

  /** Reads the streams' tails (nothing sent before this instance started is for it), beats once, starts reading. */
  async start (): Promise<void> {
    const [direct, control, fanout] = await Promise.all([
      this.cmd.lastId(this.keys.inbox(this.self)), this.cmd.lastId(this.keys.control), this.cmd.lastId(this.keys.fanout)
    ])
    Object.assign(this.cursors, { direct, control, fanout })
    await this.beat()
    this.heartbeat = setInterval(() => { void this.beat() }, this.options.heartbeatMs)
    this.heartbeat.unref()
    this.reading = this.read()
  }

  async send (to: string, message: DirectMessage, options?: WriteOptions): Promise<void> {
    await this.append(this.keys.inbox(to), INBOX_LENGTH, message, options)
  }

  async control (message: ControlMessage, options?: WriteOptions): Promise<void> {
    await this.append(this.keys.control, INBOX_LENGTH, message, options)
  }

  async fanout (message: FanoutMessage): Promise<string> {
    return await this.append(this.keys.fanout, this.options.broadcastHistory, message)
  }

  /** XADD of one message, kept in `recent` once acknowledged. `replaces`: the sequence number of the copy this one writes again. */
  private async append (key: string, maxLen: number, message: object, options?: WriteOptions, replaces?: number): Promise<string> {
    return await this.write(async (fields, seq, json) => {
      const id = await this.cmd.xadd(key, maxLen, replaces === undefined ? fields : [...fields, 'o', String(replaces)])
      this.acknowledged({ key, maxLen, message, seq, at: Date.now(), bytes: json.length })
      return id
    }, message, options)
  }

  private acknowledged (write: Acknowledged): void {
    const recent = this.recent
    recent.push(write)
    this.recentBytes += write.bytes
    const since = write.at - this.options.heartbeatMs * MISSED_BEATS
    const over = (): boolean => recent.length - this.recentStart > this.options.outboxLimit || this.recentBytes > RESEND_BYTES
    let oldest = recent[this.recentStart]
    while (oldest !== undefined && oldest !== write && (oldest.at < since || over())) {
      this.recentBytes -= oldest.bytes
      oldest = recent[++this.recentStart]
    }
    // Spliced away in batches: removing one entry per write would move the whole array each time.
    if (this.recentStart > 1024 && this.recentStart * 2 > recent.length) {
      recent.splice(0, this.recentStart)
      this.recentStart = 0
    }
  }

  async deliver0 (session: string, json: string): Promise<string | undefined> {
    const { maxEvents, maxBytes, ttlMs } = this.options
    // The gateway completes the `event` message with the position the script assigned (`p`).
    const position = await this.write(async ([, from = '', , boot = '', , seq = '', , message = '']) => await this.cmd.script('mcpDeliver0',
      [this.keys.session(session), this.keys.log0(session), this.keys.logBytes(session)],
      [json, message, maxEvents, maxBytes, ttlMs, this.keys.inboxPrefix, INBOX_LENGTH, from, boot, seq]), { type: 'event', session, json })
    return typeof position === 'string' ? position : undefined
  }

  async log0After (session: string, position: string): Promise<Array<{ position: string, json: string }>> {
    const entries = await bounded(this.cmd, this.options.timeoutMs, async () => await this.cmd.xrange(this.keys.log0(session), exclusive(position), '+'))
    const out: Array<{ position: string, json: string }> = []
    for (const [id, fields] of entries) {
      const json = fields[1] ?? ''
      if (json !== '') out.push({ position: id, json })
    }
    return out
  }

  alive (instance: string): boolean {
    return instance === this.self || this.live.has(instance)
  }

  /**
   * Redis came back empty: its live set too. Until every instance has beaten again, the instances
   * known alive before stay alive here (the first beat after the restart would otherwise see only
   * those that beat before it, and a legacy POST for another's session would be answered 404).
   */
  restarted (): void {
    this.keepLiveUntil = Date.now() + this.options.heartbeatMs * MISSED_BEATS
    void this.beat()
    // What the old server acknowledged last may have died with it unread: written again, in order.
    const lost = this.unconfirmed
    this.unconfirmed = []
    for (const write of lost) {
      this.append(write.key, write.maxLen, write.message, undefined, write.seq).catch((error: unknown) => {
        this.log.warn({ err: error }, 'scale-out: a bus message could not be written again after a Redis restart')
      })
    }
    if (lost.length > 0) this.log.info({ messages: lost.length }, 'scale-out: bus messages acknowledged just before the Redis restart written again')
  }

  /** The connection is back and Redis kept its data (the same `run_id`): nothing to write again. */
  reconnected (): void {
    this.unconfirmed = []
  }

  async checkAlive (instance: string): Promise<boolean> {
    if (instance === this.self) return true
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

  onDirect (handler: (envelope: Envelope<DirectMessage>) => void): void {
    this.handlers.direct.push(handler)
  }

  onControl (handler: (envelope: Envelope<ControlMessage>) => void): void {
    this.handlers.control.push(handler)
  }

  onFanout (handler: (envelope: Envelope<FanoutMessage>) => void): void {
    this.handlers.fanout.push(handler)
  }

  async fanoutAfter (position: string): Promise<Array<Envelope<FanoutMessage>>> {
    const entries = await bounded(this.cmd, this.options.timeoutMs, async () =>
      await this.cmd.xrange(this.keys.fanout, exclusive(position), '+', this.options.broadcastHistory))
    const out: Array<Envelope<FanoutMessage>> = []
    for (const entry of entries) {
      const envelope = parse<FanoutMessage>(entry)
      if (envelope !== undefined) out.push(envelope.envelope)
    }
    return out
  }

  fanoutCursor (): string {
    return this.cursors.fanout
  }

  /** Bus writes refused because `outboxLimit` writes were waiting for Redis (for metrics and tests). */
  get refusedWrites (): number {
    return this.refused
  }

  /** Writes of requests refused (503) because Redis was unreachable, since start (for metrics and tests). */
  get unsentWrites (): number {
    return this.unsent
  }

  async close (): Promise<void> {
    if (this.closed) return
    this.closed = true
    clearInterval(this.heartbeat)
    this.watched.clear()
    // Leave the live set at once rather than after MISSED_BEATS: nobody waits on us any more.
    if (this.cmd.ready) await this.cmd.script('mcpLeave', [this.keys.live], [this.self]).catch(() => {})
    await this.reader.close(false)
    await this.reading
  }

  // ---- writing -----------------------------------------------------------------

  /**
   * Numbers the message and issues the write. While Redis is slow or away, writes wait in the
   * client's queue (in order, re-sent after a reconnect); `outboxLimit` bounds how many may wait,
   * and a write past it is refused with ScaleUnavailableError, counted, and logged once per outage.
   * A write a request waits on (`forRequest`) is never queued while Redis is unreachable: it waits
   * up to `redisTimeoutMs` for the connection and is refused (counted) if it is not back; once
   * issued it is awaited without a bound, since a request answered 503 must not take effect later.
   */
  /** Issues one entry: `issue` gets its fields, and its sequence number and JSON (kept by `append`). */
  private async write<T> (issue: (fields: string[], seq: number, json: string) => Promise<T>, message: object, options?: WriteOptions): Promise<T> {
    if (this.closed) throw new ScaleUnavailableError('the bus is closed')
    if (this.inflight >= this.options.outboxLimit) {
      if (this.refused++ === 0) {
        this.log.error({ redis: this.cmd.address, outboxLimit: this.options.outboxLimit },
          'scale-out: Redis is not keeping up, bus messages are being refused (outboxLimit reached)')
      }
      throw new ScaleUnavailableError(`${this.options.outboxLimit} bus messages are waiting for Redis already`)
    }
    if (options?.forRequest === true && !this.cmd.ready && !await this.cmd.waitReady(this.options.timeoutMs)) {
      // Not issued, so it can never be delivered: the request is answered 503 and retried by its client.
      this.unsent++
      this.cmd.refused('unreachable')
      throw new ScaleUnavailableError(`Redis at ${this.cmd.address} is unreachable`)
    }
    this.inflight++
    try {
      const seq = ++this.seq
      const json = JSON.stringify(message)
      return await issue(['f', this.self, 'b', this.boot, 'n', String(seq), 'm', json], seq, json)
    } finally {
      if (--this.inflight === 0 && this.refused > 0) {
        this.log.warn({ redis: this.cmd.address, refused: this.refused }, 'scale-out: bus caught up with Redis; messages were refused meanwhile')
        this.refused = 0
      }
    }
  }

  private async beat (): Promise<void> {
    // One beat at a time, and none queued while Redis is away: the first after it is back counts.
    if (this.beating || this.closed || !this.cmd.ready) return
    this.beating = true
    try {
      const ttl = this.options.heartbeatMs * MISSED_BEATS
      const reply = await this.cmd.script('mcpBeat', [this.keys.live, this.keys.inbox(this.self)], [this.self, ttl, Math.max(INBOX_TTL_MS, ttl)])
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
      if (instance === this.self || this.live.has(instance)) continue
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

  // ---- reading -----------------------------------------------------------------

  private async read (): Promise<void> {
    const channels: Array<[Channel, string]> = [['direct', this.keys.inbox(this.self)], ['control', this.keys.control], ['fanout', this.keys.fanout]]
    const byKey = new Map(channels.map(([channel, key]) => [key, channel]))
    while (!this.closed) {
      let reply
      try {
        reply = await this.reader.xread(channels.map(([channel, key]) => [key, this.cursors[channel]]), BLOCK_MS, READ_COUNT)
      } catch {
        if (this.closed) return
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS).unref())
        continue
      }
      for (const [key, entries] of reply ?? []) {
        const channel = byKey.get(key)
        /* c8 ignore next: XREAD answers only for the keys it was given */
        if (channel === undefined) continue
        for (const entry of entries) {
          this.cursors[channel] = entry[0]
          this.dispatch(channel, entry)
        }
      }
    }
  }

  private dispatch (channel: Channel, entry: StreamEntry): void {
    const parsed = parse<never>(entry)
    if (parsed === undefined) {
      this.log.warn({ entry: entry[0], channel }, 'scale-out: ignored a bus entry that is not ours')
      return
    }
    const { envelope, boot, seq, replaces } = parsed
    const sender = `${channel}|${envelope.from}|${boot}`
    if (seq <= (this.seen.get(sender) ?? 0)) return
    // A copy written again after a restart, of a message read before it: seen already.
    if (replaces !== undefined && replaces <= (this.readBefore.get(sender) ?? 0)) {
      this.seen.set(sender, seq)
      return
    }
    this.seen.set(sender, seq)
    // A sender is alive, even if it started after our last heartbeat read the live set.
    this.live.add(envelope.from)
    for (const handler of this.handlers[channel]) {
      try {
        handler(envelope)
      } catch (error) {
        this.log.error({ err: error, channel }, 'scale-out: a bus handler threw')
      }
    }
  }
}

/** `(id`: XRANGE from after `id`; the empty log's position `0` means from the start. */
function exclusive (position: string): string {
  return position === '0' || position === '0-0' ? '-' : `(${position}`
}

function parse<M> ([id, fields]: StreamEntry): { envelope: Envelope<M>, boot: string, seq: number, replaces?: number } | undefined {
  const values: Record<string, string> = {}
  for (let i = 0; i + 1 < fields.length; i += 2) values[fields[i] as string] = fields[i + 1] as string
  const { f: from, b: boot, n, m, p, o } = values
  if (from === undefined || boot === undefined || n === undefined || m === undefined) return undefined
  let message: Record<string, unknown>
  try {
    message = JSON.parse(m) as Record<string, unknown>
  } catch {
    return undefined
  }
  if (p !== undefined) message.position = p
  return { envelope: { from, position: id, message: message as M }, boot, seq: Number(n), ...(o === undefined ? {} : { replaces: Number(o) }) }
}

/** A bus write Redis acknowledged: what it takes to write it again. */
interface Acknowledged {
  readonly key: string
  readonly maxLen: number
  readonly message: object
  /** Its sequence number (`n`). */
  readonly seq: number
  /** When it was acknowledged (epoch ms). */
  readonly at: number
  /** Length of its JSON, for RESEND_BYTES. */
  readonly bytes: number
}
