import type { ScaleLogger } from '../../ports.js'
import type { InboxTarget } from './inbox.js'

/** Bytes of message JSON kept for writing again after a Redis restart (see {@link ResendLog}). */
const RESEND_BYTES = 16 * 1024 * 1024

/** A bus write Redis acknowledged: what it takes to write it again. */
export interface Acknowledged {
  readonly key: string
  readonly maxLen: number
  readonly message: object
  /** Its sequence number (`n`). */
  readonly seq: number
  /** When it was acknowledged (epoch ms). */
  readonly at: number
  /** Length of its JSON, for RESEND_BYTES. */
  readonly bytes: number
  /** The inbox it went to, through the inbox's byte bound (mcpInboxAdd), if it went to one. */
  readonly inbox?: InboxTarget
}

export interface ResendLogOptions {
  /** How long an acknowledged write is kept (ms): a reader further behind counts as dead anyway. */
  keepMs: number
  /** Writes kept at most (`outboxLimit`). */
  maxWrites: number
}

/**
 * The writes to make again after a Redis restarted empty. Such a Redis also lost what it had
 * acknowledged and a reader had yet to read (a forwarded POST answered 202 would never run, its
 * client waiting forever). So this keeps what Redis acknowledged within `keepMs` before the
 * connection dropped (at most `maxWrites` writes and RESEND_BYTES of JSON) and, once Redis is
 * known to have restarted empty, has it written again in order, each copy naming the entry it
 * replaces (`o`). A reader takes a copy unless it had read that sequence number or a later one of
 * the same sender before its own connection dropped (see the reader).
 */
export class ResendLog {
  /** Acknowledged lately: what a reader may not have read yet if Redis dies now. */
  private recent: Acknowledged[] = []
  /** Index of the oldest entry of `recent` still kept (dropped ones are spliced away in batches). */
  private recentStart = 0
  private recentBytes = 0
  /** What `recent` held when the connection dropped: written again if Redis turns out to have restarted empty. */
  private unconfirmed: Acknowledged[] = []

  constructor (private readonly options: ResendLogOptions, private readonly log: ScaleLogger) {}

  acknowledged (write: Acknowledged): void {
    const recent = this.recent
    recent.push(write)
    this.recentBytes += write.bytes
    const since = write.at - this.options.keepMs
    const over = (): boolean => recent.length - this.recentStart > this.options.maxWrites || this.recentBytes > RESEND_BYTES
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

  /** The command connection dropped: what Redis acknowledged until then is unconfirmed until it is back. */
  connectionDropped (): void {
    if (this.recent.length === this.recentStart) return
    const since = Date.now() - this.options.keepMs
    const kept = this.recent.slice(this.recentStart).filter((write) => write.at >= since)
    // Several drops before Redis is checked again: the newest `maxWrites`.
    this.unconfirmed = [...this.unconfirmed, ...kept].slice(-this.options.maxWrites)
    this.recent = []
    this.recentStart = 0
    this.recentBytes = 0
  }

  /** Redis came back with its data (the same `run_id`): nothing to write again. */
  confirmed (): void {
    this.unconfirmed = []
  }

  /** Redis came back empty: what the old server acknowledged last may have died with it unread. */
  writeAgain (append: (write: Acknowledged) => Promise<unknown>): void {
    const lost = this.unconfirmed
    this.unconfirmed = []
    // Issued at once, in order: the writes go out in that order.
    for (const write of lost) {
      append(write).catch((error: unknown) => {
        this.log.warn({ err: error }, 'scale-out: a bus message could not be written again after a Redis restart')
      })
    }
    if (lost.length > 0) this.log.info({ messages: lost.length }, 'scale-out: bus messages acknowledged just before the Redis restart written again')
  }
}
