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
/** What {@link BusReader.close} ends a pending read with. */
const CLOSED = Symbol('closed')

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
  /** Settles when close() is called: ends the wait on an XREAD that may never settle (see close). */
  private readonly closing: Promise<typeof CLOSED>
  private endWait: () => void = () => {}

  /**
   * `streams`: the stream key of each channel. `heard` learns of each sender whose message is
   * handed out, before the handlers see it. `consumed` learns, after each read that took entries
   * from the direct channel (this instance's inbox, which nobody else reads), the newest entry
   * read and the bytes of the field values read: they may be deleted.
   */
  constructor (
    private readonly connection: RedisPort,
    private readonly streams: Readonly<Record<Channel, string>>,
    private readonly heard: (instance: string) => void,
    private readonly log: ScaleLogger,
    private readonly consumed: (newest: string, bytes: number) => void = () => {}
  ) {
    // 'close' comes once per drop while the connection was up (and again per failed attempt, with
    // nothing new to note): what was read until then.
    this.closing = new Promise((resolve) => { this.endWait = () => { resolve(CLOSED) } })
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

  /**
   * Ends the XREAD in flight (by closing the connection) and waits for the loop to end. While
   * Redis is away the XREAD waits in ioredis' queue, and closing the connection between two
   * reconnection attempts does not reject it: the loop stops waiting for it instead.
   */
  async close (): Promise<void> {
    this.stopped = true
    this.endWait()
    await this.connection.close(false)
    await this.reading
  }

  private async read (): Promise<void> {
    const byKey = new Map(CHANNELS.map((channel) => [this.streams[channel], channel]))
    while (!this.stopped) {
      let reply
      try {
        const read = this.connection.xread(CHANNELS.map((channel) => [this.streams[channel], this.cursors[channel]]), BLOCK_MS, READ_COUNT)
        // Settled after close() or never: nobody is left to hear of it.
        read.catch(() => {})
        const answer = await Promise.race([read, this.closing])
        if (answer === CLOSED) return
        reply = answer
      } catch {
        if (this.stopped) return
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS).unref())
        continue
      }
      for (const [key, entries] of reply ?? []) {
        const channel = byKey.get(key)
        /* c8 ignore next: XREAD answers only for the keys it was given */
        if (channel === undefined) continue
        let bytes = 0
        for (const entry of entries) {
          this.cursors[channel] = entry[0]
          if (channel === 'direct') bytes += valueBytes(entry)
          this.dispatch(channel, entry)
        }
        if (channel === 'direct' && entries.length > 0) this.consumed(this.cursors.direct, bytes)
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

/** Bytes of an entry's field values, as the inbox scripts count them (Lua's `#` of each). */
function valueBytes ([, fields]: StreamEntry): number {
  let bytes = 0
  for (let i = 1; i < fields.length; i += 2) bytes += Buffer.byteLength(fields[i] as string)
  return bytes
}
