import { InvalidMessageError, ScaleUnavailableError } from '../../../errors.js'
import type { Bus, ControlMessage, DirectMessage, Envelope, FanoutMessage, ScaleLogger, WriteOptions } from '../../ports.js'
import { bounded, type RedisPort } from '../client.js'
import { INBOX_BYTES_SUFFIX, type Keys } from '../keys.js'
import { parseEntry } from './entry.js'
import { ReadInbox } from './inbox.js'
import { inboxTtlMs, Liveness, MISSED_BEATS } from './liveness.js'
import { BusReader } from './reader.js'
import { ResendLog } from './resend.js'
import { BusWriter, type InboxTarget } from './writer.js'

/** Entries kept in the control stream (MAXLEN ~), besides its trim by age at each heartbeat. */
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
  /** Bytes an inbox holds unread at most (`scaleOut.inboxBytes`). */
  inboxBytes: number
}

/**
 * The bus over Redis Streams (not pub/sub: a reader that reconnects after a Redis outage goes on
 * from its cursor, where a subscriber would have lost what was published meanwhile). Each
 * instance has an inbox stream; the control and fan-out streams are shared. This class picks the
 * streams (keys.ts) and hands the work out: the writer stamps and issues writes within the outbox
 * limit, the reader reads the three streams and drops duplicates, the read inbox deletes what was
 * read from it, the resend log keeps what must be written again after Redis restarted empty, and
 * liveness beats and judges deaths.
 */
export class RedisBus implements Bus {
  readonly self: string
  private readonly resend: ResendLog
  private readonly writer: BusWriter
  private readonly reader: BusReader
  private readonly liveness: Liveness
  private readonly inbox: ReadInbox
  private closed = false

  /**
   * `cmd` carries commands and writes; `blocking`, a connection of the bus's own, its XREAD BLOCK.
   * `refused` is told the name of each bound a write is refused past (telemetry counts them).
   */
  constructor (
    private readonly cmd: RedisPort,
    blocking: RedisPort,
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
    const streams = { direct: keys.inbox(self), control: keys.control, fanout: keys.fanout }
    this.inbox = new ReadInbox(cmd, { key: keys.inbox(self), bytesKey: keys.inboxBytes(self), maxBytes: options.inboxBytes, delayMs: heartbeatMs })
    this.reader = new BusReader(blocking, streams, (instance) => { this.liveness.heard(instance) }, log, (newest, bytes) => { this.inbox.read(newest, bytes) })
  }

  /** Reads the streams' tails (nothing sent before this instance started is for it), beats once, starts reading. */
  async start (): Promise<void> {
    await this.reader.seekTails(this.cmd)
    await this.liveness.start()
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
    // Nor while Redis is away: the write waits in the outbox and might run on a Redis restarted
    // empty, which knows no instance until they beat again. Such a write creates an inbox at
    // worst, which expires unless its owner beats and holds inboxBytes at most.
    const check = !this.liveness.alive(to) && this.cmd.ready
    await this.writeInbox(to, message, options, undefined, check)
  }

  async control (message: ControlMessage, options?: WriteOptions): Promise<void> {
    const bytes = Buffer.byteLength(JSON.stringify(message))
    if (bytes > MAX_CONTROL_BYTES) {
      this.refused('controlMessageBytes')
      throw new InvalidMessageError(`a ${message.type} message of ${bytes} bytes is more than the ${MAX_CONTROL_BYTES} every instance reads`)
    }
    await this.writer.append(this.keys.control, CONTROL_LENGTH, message, options)
  }

  async fanout (message: FanoutMessage): Promise<string> {
    return await this.writer.append(this.keys.fanout, this.options.broadcastHistory, message)
  }

  async deliver0 (session: string, json: string): Promise<string | undefined> {
    const { maxEvents, maxBytes, ttlMs } = this.options
    const keys = this.keys
    // The script logs `json`, then writes the `event` message to the gateway's inbox with the
    // entry's fields, completed with the position it assigned (`p`).
    const reply = await this.writer.write(async (stamp) => await this.cmd.script('mcpDeliver0',
      [keys.session(session), keys.log0(session), keys.logBytes(session)],
      [json, stamp.json, maxEvents, maxBytes, ttlMs, keys.inboxPrefix, this.options.inboxBytes, inboxTtlMs(this.options.heartbeatMs),
        INBOX_BYTES_SUFFIX, stamp.from, stamp.boot, stamp.seq]), { type: 'event', session, json })
    if (!Array.isArray(reply)) return undefined
    const [position, delivered] = reply as [string, number]
    // Logged, not delivered live: the gateway's client gets it when it resumes (see mcpDeliver0).
    if (delivered === -1) this.refused('scaleOut.inboxBytes')
    return position
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
    this.liveness.restarted()
    this.resend.writeAgain(async (write) => write.to === undefined
      ? await this.writer.append(write.key, write.maxLen, write.message, undefined, write.seq)
      // Acknowledged for a live instance already: Redis' live set, restarted empty, has yet to say so.
      : await this.writeInbox(write.to, write.message, undefined, write.seq, false))
  }

  /** The connection is back and Redis kept its data (the same `run_id`): nothing to write again. */
  reconnected (): void {
    this.resend.confirmed()
  }

  onDirect (handler: (envelope: Envelope<DirectMessage>) => void): void {
    this.reader.on('direct', handler)
  }

  onControl (handler: (envelope: Envelope<ControlMessage>) => void): void {
    this.reader.on('control', handler)
  }

  onFanout (handler: (envelope: Envelope<FanoutMessage>) => void): void {
    this.reader.on('fanout', handler)
  }

  async fanoutAfter (position: string): Promise<Array<Envelope<FanoutMessage>>> {
    const entries = await bounded(this.cmd, this.options.timeoutMs, async () =>
      await this.cmd.xrange(this.keys.fanout, exclusive(position), '+', this.options.broadcastHistory))
    const out: Array<Envelope<FanoutMessage>> = []
    for (const entry of entries) {
      const parsed = parseEntry<FanoutMessage>(entry)
      if (parsed !== undefined) out.push(parsed.envelope)
    }
    return out
  }

  fanoutCursor (): string {
    return this.reader.cursor('fanout')
  }

  /**
   * Into `to`'s inbox, within its byte bound; refused with ScaleUnavailableError (503) when it is
   * full. With `checkAlive`, dropped (resolves) unless `to` has beaten within the inbox TTL.
   */
  private async writeInbox (to: string, message: object, options: WriteOptions | undefined, replaces: number | undefined, checkAlive: boolean): Promise<void> {
    const inbox: InboxTarget = {
      instance: to,
      key: this.keys.inbox(to),
      bytesKey: this.keys.inboxBytes(to),
      maxBytes: this.options.inboxBytes,
      ttlMs: inboxTtlMs(this.options.heartbeatMs),
      checkAlive
    }
    if (await this.writer.appendToInbox(inbox, message, options, replaces) !== 'full') return
    this.refused('scaleOut.inboxBytes')
    throw new ScaleUnavailableError(`instance ${to} has scaleOut.inboxBytes (${this.options.inboxBytes}) of messages unread`)
  }

  async close (): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.inbox.close()
    this.writer.close()
    this.reader.stop()
    await this.liveness.stop()
    await this.reader.close()
  }
}

/** `(id`: XRANGE from after `id`; the empty log's position `0` means from the start. */
function exclusive (position: string): string {
  return position === '0' || position === '0-0' ? '-' : `(${position}`
}
