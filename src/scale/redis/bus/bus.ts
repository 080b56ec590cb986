import { InvalidMessageError, ScaleUnavailableError } from '../../../errors.js'
import type { Bus, ControlMessage, DirectMessage, Envelope, FanoutMessage, ScaleLogger, WriteOptions } from '../../ports.js'
import { bounded, type RedisPort } from '../client.js'
import type { Keys } from '../keys.js'
import { parseEntry } from './entry.js'
import { exclusive } from './fanout-order.js'
import { ReadInbox, type InboxTarget } from './inbox.js'
import { inboxTtlMs, Liveness, MISSED_BEATS } from './liveness.js'
import { BusReader } from './reader.js'
import { ResendLog } from './resend.js'
import { Stream0Order, type EventEntry } from './stream0-order.js'
import { BusWriter } from './writer.js'

/** Entries kept in a control stream (MAXLEN ~), besides its trim by age at each heartbeat. */
const CONTROL_LENGTH = 10_000
/**
 * Largest control message, as JSON: a cancel carries a request id and a reason, bounded upstream
 * (`MAX_REQUEST_ID_LENGTH`, 256-character reasons), the others ids. Every instance reads each
 * one, so nothing a client sends may make one large.
 */
export const MAX_CONTROL_BYTES = 4096

export interface RedisBusOptions {
  self: string
  heartbeatMs: number
  /** Bus writes waiting for Redis at most; past it a write is refused (logged once). */
  outboxLimit: number
  /** Fan-out messages kept for resuming streams (MAXLEN ~). */
  broadcastHistory: number
  /** The stream-0 log's bounds and lifetime: those of the session's event store. */
  maxEvents: number
  maxBytes: number
  ttlMs: number
  /** Longest wait on Redis where a request waits (a write for it, a liveness check, a stream-0 resume), `redisTimeoutMs`. */
  timeoutMs: number
  /** Bytes an inbox holds unread at most (`scaleOut.inboxBytes`), per shard. */
  inboxBytes: number
}

/**
 * The bus over Redis Streams (not pub/sub: a reader that reconnects after a Redis outage goes on
 * from its cursor, where a subscriber would have lost what was published meanwhile). The bus is
 * split into `shards` (keys.ts): each has a control stream, a fan-out stream and an inbox per
 * instance. A message about a session travels on the session's shard (its order kept, per
 * session); an instance writes its fan-out to its home shard (its order kept, per sender). This
 * class picks the streams and hands the work out: the writer stamps and issues writes within the
 * outbox limit, the reader reads every shard and drops duplicates, the resend log keeps what must
 * be written again after Redis restarted empty, liveness beats and judges deaths, and the stream-0
 * order puts a gateway's stream-0 messages back in log order.
 */
export class RedisBus implements Bus {
  readonly self: string
  private readonly resend: ResendLog
  private readonly writer: BusWriter
  private readonly reader: BusReader
  private readonly liveness: Liveness
  private readonly stream0: Stream0Order
  /** This instance's inbox on each shard, emptied as read. */
  private readonly inboxes: ReadInbox[]
  private readonly direct: Array<(envelope: Envelope<DirectMessage>) => void> = []
  /** Until then no inbox write checks its owner: Redis restarted empty and knows no instance yet. */
  private uncheckedUntil = 0
  /** The shard this instance writes its fan-out to. */
  private home = 0
  private closed = false

  /**
   * `cmd` carries commands and writes; `blocking`, connections of the bus's own, one per shard, each
   * for its XREAD BLOCK. `refused` is told the name of each bound a write is refused past
   * (telemetry counts them).
   */
  constructor (
    private readonly cmd: RedisPort,
    blocking: readonly RedisPort[],
    private readonly keys: Keys,
    private readonly options: RedisBusOptions,
    log: ScaleLogger,
    private readonly refused: (limit: string) => void = () => {}
  ) {
    const { self, heartbeatMs, outboxLimit, timeoutMs } = options
    this.self = self
    // A reader further behind than three heartbeats counts as dead anyway.
    this.resend = new ResendLog({ keepMs: heartbeatMs * MISSED_BEATS, maxWrites: outboxLimit }, log)
    // 'close' comes once per drop while the connection was up (and again per failed attempt, with
    // nothing new to note): what was acknowledged until then.
    cmd.on('close', () => { this.resend.connectionDropped() })
    this.writer = new BusWriter(cmd, { self, outboxLimit, timeoutMs }, this.resend, log)
    this.liveness = new Liveness(cmd, keys, { self, heartbeatMs, timeoutMs }, log)
    this.stream0 = new Stream0Order(cmd, keys, self, log)
    const streams = blocking.map((_, shard) => ({ direct: keys.inbox(self, shard), control: keys.control(shard), fanout: keys.fanout(shard) }))
    this.inboxes = blocking.map((_, shard) => new ReadInbox(cmd, {
      key: keys.inbox(self, shard), bytesKey: keys.inboxBytes(self, shard), maxBytes: options.inboxBytes, delayMs: heartbeatMs
    }))
    this.reader = new BusReader(blocking, streams, cmd, (instance) => { this.liveness.heard(instance) }, log,
      (shard, newest, bytes) => { this.inboxes[shard]?.read(newest, bytes) })
    // Stream-0 messages go through their gateway's order once, then to every handler.
    const handOut = (envelope: Envelope<DirectMessage>): void => {
      for (const handler of this.direct) {
        try {
          handler(envelope)
        } catch (error) {
          log.error({ err: error, channel: 'direct' }, 'scale-out: a bus handler threw')
        }
      }
    }
    this.reader.on('direct', (envelope: Envelope<DirectMessage>) => {
      const { message } = envelope
      if (message.type === 'event') {
        this.stream0.event(envelope as Envelope<EventEntry>, handOut)
        return
      }
      if (message.type === 'release') this.stream0.forget(message.session)
      handOut(envelope)
    })
    this.reader.on('control', (envelope: Envelope<ControlMessage>) => {
      if (envelope.message.type === 'end') this.stream0.forget(envelope.message.session)
    })
  }

  /** Reads the streams' tails (nothing sent before this instance started is for it), beats once, starts reading. */
  async start (): Promise<void> {
    await this.reader.seekTails(this.cmd)
    this.home = await this.liveness.start()
    this.reader.start()
  }

  /**
   * Nothing is written for an instance that has not beaten within an inbox's TTL (the one check,
   * for every caller, made by the write itself unless this instance knows `to` alive): no reader
   * would take it, and a client naming a made-up instance (in a reply's id, in a resume's event
   * id) would otherwise create keys at will. Such a message is dropped, as a dead instance drops
   * it. An inbox holding `inboxBytes` unread refuses it (503).
   */
  async send (to: string, message: DirectMessage, options?: WriteOptions): Promise<void> {
    // Known alive here (the last beat's live set, or a message read from it): no check in Redis.
    // Nor while Redis is away, or just back empty: it knows no instance until they beat again
    // (a queued write might run then). Such a write creates an inbox at worst, which expires
    // unless its owner beats and holds inboxBytes at most.
    const check = !this.liveness.alive(to) && this.cmd.ready && Date.now() >= this.uncheckedUntil
    const inbox = this.inboxOf(to, this.keys.shardOf(message.session), check)
    this.accepted(inbox, await this.writer.appendToInbox(inbox, message, options))
  }

  async control (message: ControlMessage, options?: WriteOptions): Promise<void> {
    const bytes = Buffer.byteLength(JSON.stringify(message))
    if (bytes > MAX_CONTROL_BYTES) {
      this.refused('controlMessageBytes')
      throw new InvalidMessageError(`a ${message.type} message of ${bytes} bytes is more than the ${MAX_CONTROL_BYTES} every instance reads`)
    }
    const shard = 'session' in message ? this.keys.shardOf(message.session) : 0
    await this.writer.append(this.keys.control(shard), CONTROL_LENGTH, message, options)
  }

  async fanout (message: FanoutMessage): Promise<string> {
    return await this.writer.append(this.keys.fanout(this.home), this.options.broadcastHistory, message)
  }

  async deliver0 (session: string, json: string): Promise<string | undefined> {
    const { maxEvents, maxBytes, ttlMs } = this.options
    const keys = this.keys
    // Two steps, two slots: the script logs `json` and reads the gateway (atomic against a claim:
    // a message logged before the claim is for the previous gateway), then the message goes to the
    // gateway's inbox, with the log position before it (the gateway restores the log's order). It
    // is stamped only then, so that it follows this instance's entries issued meanwhile. The inbox
    // entry, not the script, is what a failover or an empty restart writes again: the gateway may
    // not have read it, and a copy of the log entry would be logged twice where it survived.
    return await this.writer.write(async (stampOf) => {
      const logged = await this.cmd.script('mcpDeliver0', [keys.session(session), keys.log0(session), keys.logBytes(session)], [json, maxEvents, maxBytes, ttlMs])
      if (!Array.isArray(logged)) return undefined
      const [gateway, prev, position] = logged as [string, string, string]
      // The gateway claimed the stream: an instance, never a name a client chose (no check).
      const inbox = this.inboxOf(gateway, keys.shardOf(session), false)
      const message: EventEntry = { type: 'event', session, json, position, prev }
      // Logged, not delivered live when the inbox is full: the client gets it when it resumes.
      if (await this.writer.issueToInbox(inbox, stampOf(message), message) === 'full') this.refused('scaleOut.inboxBytes')
      return position
    })
  }

  /** A claim of stream 0 succeeded (from the session store): its gateway's messages are ordered from the claim's tail. */
  claimed (session: string, instance: string, tail: string, previous: string | undefined): void {
    this.stream0.claimed(session, instance, tail, previous)
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
    return this.liveness.alive(instance)
  }

  async checkAlive (instance: string): Promise<boolean> {
    return await this.liveness.checkAlive(instance)
  }

  watchDeath (instance: string, onDead: () => void): () => void {
    return this.liveness.watchDeath(instance, onDead)
  }

  /**
   * Redis came back empty (a new `run_id`): the live set is rebuilt, and what the old server
   * acknowledged last is written again, in order.
   */
  restarted (): void {
    this.uncheckedUntil = Date.now() + this.options.heartbeatMs * MISSED_BEATS
    this.liveness.restarted()
    // An inbox's message was acknowledged for a live owner already: Redis, restarted empty, has yet to hear it beat.
    this.resend.writeAgain(async (write) => write.inbox === undefined
      ? await this.writer.append(write.key, write.maxLen, write.message, undefined, write.seq)
      : this.accepted(write.inbox, await this.writer.appendToInbox({ ...write.inbox, checkAlive: false }, write.message, undefined, write.seq)))
  }

  /** The connection is back and Redis kept its data (the same `run_id`): nothing to write again. */
  reconnected (): void {
    this.resend.confirmed()
  }

  onDirect (handler: (envelope: Envelope<DirectMessage>) => void): void {
    this.direct.push(handler)
  }

  onControl (handler: (envelope: Envelope<ControlMessage>) => void): void {
    this.reader.on('control', handler)
  }

  onFanout (handler: (envelope: Envelope<FanoutMessage>) => void): void {
    this.reader.on('fanout', handler)
  }

  async fanoutAfter (position: string): Promise<Array<Envelope<FanoutMessage>>> {
    const entries = await bounded(this.cmd, this.options.timeoutMs, async () => await this.reader.fanoutAfter(position, this.options.broadcastHistory))
    const out: Array<Envelope<FanoutMessage>> = []
    for (const { position, entry } of entries) {
      const parsed = parseEntry<FanoutMessage>(entry)
      if (parsed !== undefined) out.push({ ...parsed.envelope, position })
    }
    return out
  }

  fanoutCursor (): string {
    return this.reader.fanoutCursor()
  }

  written (): Promise<void> | undefined {
    return this.writer.written()
  }

  /** `to`'s inbox on `shard`, within its byte bound; with `checkAlive`, only while `to` beats. */
  private inboxOf (to: string, shard: number, checkAlive: boolean): InboxTarget {
    return {
      key: this.keys.inbox(to, shard),
      bytesKey: this.keys.inboxBytes(to, shard),
      senderBytesKey: this.keys.inboxBytes(this.self, shard),
      maxBytes: this.options.inboxBytes,
      ttlMs: inboxTtlMs(this.options.heartbeatMs),
      checkAlive
    }
  }

  /** A full inbox refuses the message: counted, and ScaleUnavailableError (503) for whoever needed it. */
  private accepted (inbox: InboxTarget, outcome: string): void {
    if (outcome !== 'full') return
    this.refused('scaleOut.inboxBytes')
    throw new ScaleUnavailableError(`an instance's inbox holds scaleOut.inboxBytes (${this.options.inboxBytes}) of messages unread (${inbox.key})`)
  }

  async close (): Promise<void> {
    if (this.closed) return
    this.closed = true
    for (const inbox of this.inboxes) inbox.close()
    this.writer.close()
    this.reader.stop()
    await this.liveness.stop()
    await this.reader.close()
  }
}
