import { randomBytes } from 'node:crypto'
import { ScaleUnavailableError } from '../../../errors.js'
import type { ScaleLogger, WriteOptions } from '../../ports.js'
import type { RedisPort } from '../client.js'
import { fieldsOf, type Stamp } from './entry.js'
import type { InboxTarget, InboxWrite } from './inbox.js'
import type { ResendLog } from './resend.js'
import { WriteBarrier } from './write-barrier.js'

export interface BusWriterOptions {
  self: string
  /** Bus writes waiting for Redis at most (`outboxLimit`). */
  outboxLimit: number
  /**
   * Longest wait for the connection before a write a request waits on is refused, and of an answer
   * for the writes issued before it (`redisTimeoutMs`).
   */
  timeoutMs: number
}

/**
 * This instance's bus writes: each stamped with the sender, its boot and the next sequence number,
 * and issued on the command connection, within the outbox limit.
 */
export class BusWriter {
  private readonly boot = randomBytes(6).toString('base64url')
  private seq = 0
  private inflight = 0
  /** Writes refused since the outbox last emptied: the first is logged, the count once it empties. */
  private refused = 0
  private closed = false
  /** The writes issued and not settled, for the answers that must come after them. */
  private readonly barrier: WriteBarrier

  constructor (
    private readonly cmd: RedisPort,
    private readonly options: BusWriterOptions,
    private readonly resend: ResendLog,
    private readonly log: ScaleLogger
  ) {
    this.barrier = new WriteBarrier(options.timeoutMs)
  }

  /** See {@link WriteBarrier.settled}. */
  written (): Promise<void> | undefined {
    return this.barrier.settled()
  }

  /** XADD of one message to the stream `key`, kept for writing again once acknowledged. `replaces`: the sequence number of the entry this one writes again. */
  async append (key: string, maxLen: number, message: object, options?: WriteOptions, replaces?: number): Promise<string> {
    return await this.write(async (stampOf) => {
      const stamp = stampOf(message)
      const id = await this.cmd.xadd(key, maxLen, fieldsOf(stamp, replaces))
      this.resend.acknowledged({ key, maxLen, message, seq: stamp.seq, at: Date.now(), bytes: stamp.json.length })
      return id
    }, options)
  }

  /**
   * One message into an instance's inbox, within the inbox's byte bound and only while its owner
   * beats (the mcpInboxAdd script), kept for writing again once acknowledged.
   */
  async appendToInbox (inbox: InboxTarget, message: object, options?: WriteOptions, replaces?: number): Promise<InboxWrite> {
    return await this.write(async (stampOf) => await this.issueToInbox(inbox, stampOf(message), message, replaces), options)
  }

  /** The script of {@link appendToInbox} for a message stamped already (deliver0 stamps it between its two steps). */
  async issueToInbox (inbox: InboxTarget, stamp: Stamp, message: object, replaces?: number): Promise<InboxWrite> {
    const id = await this.cmd.script('mcpInboxAdd', [inbox.key, inbox.bytesKey, inbox.senderBytesKey], [inbox.maxBytes, inbox.ttlMs, inbox.checkAlive ? 1 : 0, ...fieldsOf(stamp, replaces)])
    if (id === 0) return 'dropped'
    if (typeof id !== 'string') return 'full'
    this.resend.acknowledged({ key: inbox.key, maxLen: 0, message, seq: stamp.seq, at: Date.now(), bytes: stamp.json.length, inbox })
    return 'written'
  }

  /**
   * Issues a write: `issue` writes its entry (an XADD, or a script and then an XADD), stamping its
   * message with `stampOf` right before the XADD: a reader drops an entry whose sequence number is
   * not above the last it read from the sender on that stream, so sequence numbers must be taken
   * in the order the entries are issued. While Redis is slow or away, writes wait in the client's
   * queue (in order, re-sent after a reconnect); `outboxLimit` bounds how many may wait, and a
   * write past it is refused with ScaleUnavailableError, logged once per outage. A write a request
   * waits on (`forRequest`) is never queued while Redis is unreachable: it waits up to
   * `redisTimeoutMs` for the connection and is refused (counted) if it is not back; once issued it
   * is awaited without a bound, since a request answered 503 must not take effect later.
   */
  async write<T> (issue: (stampOf: (message: object) => Stamp) => Promise<T>, options?: WriteOptions): Promise<T> {
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
      this.cmd.refused('unreachable')
      throw new ScaleUnavailableError(`Redis at ${this.cmd.address} is unreachable`)
    }
    this.inflight++
    try {
      return await this.barrier.track(issue((message) => ({ from: this.options.self, boot: this.boot, seq: ++this.seq, json: JSON.stringify(message) })))
    } finally {
      if (--this.inflight === 0 && this.refused > 0) {
        this.log.warn({ redis: this.cmd.address, refused: this.refused }, 'scale-out: bus caught up with Redis; messages were refused meanwhile')
        this.refused = 0
      }
    }
  }

  /** Every later write is refused. */
  close (): void {
    this.closed = true
  }
}
