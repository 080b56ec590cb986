import type { Bus, ControlMessage, DirectMessage, Envelope, FanoutMessage, ScaleLogger, WriteOptions } from '../../ports.js'
import { bounded, type RedisPort } from '../client.js'
import type { Keys } from '../keys.js'
import { parseEntry } from './entry.js'
import { Liveness, MISSED_BEATS } from './liveness.js'
import { BusReader } from './reader.js'
import { ResendLog } from './resend.js'
import { BusWriter } from './writer.js'

/** Entries kept in an inbox and in the control stream (MAXLEN ~): a reader further behind loses. */
const INBOX_LENGTH = 10_000

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
}

/**
 * The bus over Redis Streams (not pub/sub: a reader that reconnects after a Redis outage goes on
 * from its cursor, where a subscriber would have lost what was published meanwhile). Each
 * instance has an inbox stream; the control and fan-out streams are shared. This class picks the
 * streams (keys.ts) and hands the work out: the writer stamps and issues writes within the outbox
 * limit, the reader reads the three streams and drops duplicates, the resend log keeps what must
 * be written again after Redis restarted empty, and liveness beats and judges deaths.
 */
export class RedisBus implements Bus {
  readonly self: string
  private readonly resend: ResendLog
  private readonly writer: BusWriter
  private readonly reader: BusReader
  private readonly liveness: Liveness
  private closed = false

  /** `cmd` carries commands and writes; `blocking`, a connection of the bus's own, its XREAD BLOCK. */
  constructor (
    private readonly cmd: RedisPort,
    blocking: RedisPort,
    private readonly keys: Keys,
    private readonly options: RedisBusOptions,
    log: ScaleLogger
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
    this.reader = new BusReader(blocking, streams, (instance) => { this.liveness.heard(instance) }, log)
  }

  /** Reads the streams' tails (nothing sent before this instance started is for it), beats once, starts reading. */
  async start (): Promise<void> {
    await this.reader.seekTails(this.cmd)
    await this.liveness.start()
    this.reader.start()
  }

  async send (to: string, message: DirectMessage, options?: WriteOptions): Promise<void> {
    await this.writer.append(this.keys.inbox(to), INBOX_LENGTH, message, options)
  }

  async control (message: ControlMessage, options?: WriteOptions): Promise<void> {
    await this.writer.append(this.keys.control, INBOX_LENGTH, message, options)
  }

  async fanout (message: FanoutMessage): Promise<string> {
    return await this.writer.append(this.keys.fanout, this.options.broadcastHistory, message)
  }

  async deliver0 (session: string, json: string): Promise<string | undefined> {
    const { maxEvents, maxBytes, ttlMs } = this.options
    const keys = this.keys
    // The script logs `json`, then writes the `event` message to the gateway's inbox with the
    // entry's fields, completed with the position it assigned (`p`).
    const position = await this.writer.write(async (stamp) => await this.cmd.script('mcpDeliver0',
      [keys.session(session), keys.log0(session), keys.logBytes(session)],
      [json, stamp.json, maxEvents, maxBytes, ttlMs, keys.inboxPrefix, INBOX_LENGTH, stamp.from, stamp.boot, stamp.seq]), { type: 'event', session, json })
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
    this.resend.writeAgain(async (write) => await this.writer.append(write.key, write.maxLen, write.message, undefined, write.seq))
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

  async close (): Promise<void> {
    if (this.closed) return
    this.closed = true
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
