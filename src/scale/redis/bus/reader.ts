import type { Envelope, ScaleLogger } from '../../ports.js'
import type { RedisPort, StreamEntry } from '../client.js'
import { parseEntry } from './entry.js'

/** How long one XREAD blocks; only bounds how late the loop notices `stop()` if Redis hangs. */
const BLOCK_MS = 5000
/** Entries taken per XREAD. */
const READ_COUNT = 1000
/** Pause before reading again after a failed XREAD (the connection is being re-established). */
const RETRY_MS = 100

export type Channel = 'direct' | 'control' | 'fanout'
const CHANNELS: readonly Channel[] = ['direct', 'control', 'fanout']

/**
 * Reads this instance's streams (its inbox, the control and the fan-out streams) with one
 * XREAD BLOCK on a connection of its own, from cursors kept here: across reconnects, and across a
 * Redis restart without persistence too, since new entry ids sort after the old ones. Hands each
 * message to the channel's handlers once: an entry sent twice (a write re-sent after a reconnect)
 * or a copy of one read before the connection dropped (written again after a restart) is dropped.
 */
export class BusReader {
  private readonly cursors: Record<Channel, string> = { direct: '0-0', control: '0-0', fanout: '0-0' }
  private readonly handlers: { [C in Channel]: Array<(envelope: Envelope<never>) => void> } = { direct: [], control: [], fanout: [] }
  /** Per sender (channel, instance and boot), the newest sequence number read. */
  private readonly seen = new Map<string, number>()
  /** Per sender, what this reader had read before its connection dropped (a copy of `seen`). */
  private readBefore = new Map<string, number>()
  private reading: Promise<void> | undefined
  private stopped = false

  /**
   * `streams`: the stream key of each channel. `heard` learns of each sender whose message is
   * handed out, before the handlers see it.
   */
  constructor (
    private readonly connection: RedisPort,
    private readonly streams: Readonly<Record<Channel, string>>,
    private readonly heard: (instance: string) => void,
    private readonly log: ScaleLogger
  ) {
    // 'close' comes once per drop while the connection was up (and again per failed attempt, with
    // nothing new to note): what was read until then.
    let up = true
    connection.on('ready', () => { up = true })
    connection.on('close', () => {
      if (!up) return
      up = false
      this.readBefore = new Map(this.seen)
    })
  }

  /** Starts at the streams' tails, read on `cmd`: nothing written before this instance started is for it. */
  async seekTails (cmd: RedisPort): Promise<void> {
    await Promise.all(CHANNELS.map(async (channel) => { this.cursors[channel] = await cmd.lastId(this.streams[channel]) }))
  }

  start (): void {
    this.reading = this.read()
  }

  on (channel: Channel, handler: (envelope: Envelope<never>) => void): void {
    this.handlers[channel].push(handler)
  }

  /** Position of the newest entry of `channel` handed to its handlers (or skipped). */
  cursor (channel: Channel): string {
    return this.cursors[channel]
  }

  /** No XREAD after the one in flight. */
  stop (): void {
    this.stopped = true
  }

  /** Ends the XREAD in flight (by closing the connection) and waits for the loop to end. */
  async close (): Promise<void> {
    this.stopped = true
    await this.connection.close(false)
    await this.reading
  }

  private async read (): Promise<void> {
    const byKey = new Map(CHANNELS.map((channel) => [this.streams[channel], channel]))
    while (!this.stopped) {
      let reply
      try {
        reply = await this.connection.xread(CHANNELS.map((channel) => [this.streams[channel], this.cursors[channel]]), BLOCK_MS, READ_COUNT)
      } catch {
        if (this.stopped) return
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
    const parsed = parseEntry<never>(entry)
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
    this.heard(envelope.from)
    for (const handler of this.handlers[channel]) {
      try {
        handler(envelope)
      } catch (error) {
        this.log.error({ err: error, channel }, 'scale-out: a bus handler threw')
      }
    }
  }
}
