import type { RedisPort } from '../client.js'

/** Where a message for an inbox goes (BusWriter.appendToInbox): one instance's inbox on one shard, its byte count and bounds. */
export interface InboxTarget {
  readonly key: string
  readonly bytesKey: string
  /** Bytes the inbox may hold unread (`scaleOut.inboxBytes`). */
  readonly maxBytes: number
  /** TTL of the inbox's keys when this write creates them (its owner's beats extend it). */
  readonly ttlMs: number
  /** Whether the inbox's owner must be known to beat (false: the sender knows it alive). */
  readonly checkAlive: boolean
  /**
   * The sender's own inbox byte count on the same shard (same slot): while it is missing, Redis has
   * not seen the sender beat since it came back empty, so it knows no instance yet and a missing
   * owner proves nothing (see mcpInboxAdd).
   */
  readonly senderBytesKey: string
}

/** What became of a message for an inbox: written, dropped (its owner is not known to run), or refused (the inbox is full). */
export type InboxWrite = 'written' | 'dropped' | 'full'

export interface ReadInboxOptions {
  /** This instance's inbox and its byte count. */
  key: string
  bytesKey: string
  /** The inbox's bound (`scaleOut.inboxBytes`): an eighth of it read is deleted at once. */
  maxBytes: number
  /** Longest wait before what was read is deleted (`heartbeatMs`). */
  delayMs: number
}

/**
 * Deletes from this instance's inbox what its reader has read, and gives the bytes back to the
 * inbox's bound (the mcpInboxAck script): a legacy POST forwarded here and run, a reply taken,
 * leave nothing in Redis. Nobody else reads an inbox, so nothing read is needed again. Deleted
 * within `delayMs` (one command per heartbeat at most while messages are small), or at once once
 * an eighth of the bound was read, so that a busy inbox never waits on a timer to empty.
 */
export class ReadInbox {
  /** Read and not deleted yet: the newest entry read, and the bytes read since the last deletion. */
  private unacked: { newest: string, bytes: number } | undefined
  private timer: NodeJS.Timeout | undefined
  private closed = false

  constructor (private readonly cmd: RedisPort, private readonly options: ReadInboxOptions) {}

  /** The reader took entries up to `newest`, `bytes` of field values in all. */
  read (newest: string, bytes: number): void {
    this.unacked = { newest, bytes: (this.unacked?.bytes ?? 0) + bytes }
    if (this.unacked.bytes >= this.options.maxBytes / 8) this.delete()
    else this.deleteLater()
  }

  /** Nothing more is deleted (the connection is the engine's, closed after). */
  close (): void {
    this.closed = true
    clearTimeout(this.timer)
  }

  private deleteLater (): void {
    if (this.timer !== undefined || this.closed) return
    this.timer = setTimeout(() => { this.delete() }, this.options.delayMs)
    this.timer.unref()
  }

  private delete (): void {
    clearTimeout(this.timer)
    this.timer = undefined
    const unacked = this.unacked
    this.unacked = undefined
    if (unacked === undefined || this.closed) return
    const { key, bytesKey } = this.options
    this.cmd.script('mcpInboxAck', [key, bytesKey], [after(unacked.newest), unacked.bytes]).catch(() => {
      // Not deleted (Redis away): the next deletion takes these entries and their bytes along.
      this.unacked = { newest: this.unacked?.newest ?? unacked.newest, bytes: (this.unacked?.bytes ?? 0) + unacked.bytes }
      this.deleteLater()
    })
  }
}

/** The smallest stream id after `id` (`{ms}-{seq+1}`): XTRIM MINID keeps it and drops `id`. */
function after (id: string): string {
  const [ms = '0', seq = '0'] = id.split('-')
  return `${ms}-${(BigInt(seq) + 1n).toString()}`
}
