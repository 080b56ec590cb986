import type { Envelope, ScaleLogger } from '../../ports.js'
import type { RedisPort, StreamEntry } from '../client.js'
import { parseEntry } from './entry.js'
import { fanoutOrder, type FanoutOrder } from './fanout-order.js'

/** How long one XREAD blocks; only bounds how late the loop notices `stop()` if Redis hangs. */
const BLOCK_MS = 5000
/** Entries taken per XREAD. */
const READ_COUNT = 1000
/** Pause before reading again after a failed XREAD (the connection is being re-established). */
const RETRY_MS = 100
/** Sequence numbers remembered per sender since a connection dropped (the copies written again come soon after). */
const READ_SINCE = 10_000

export type Channel = 'direct' | 'control' | 'fanout'
const CHANNELS: readonly Channel[] = ['direct', 'control', 'fanout']

/** What {@link BusReader.close} ends a pending read with. */
const CLOSED = Symbol('closed')

/** The three streams of one bus shard this instance reads: its inbox, the control and the fan-out stream. */
export type ShardStreams = Readonly<Record<Channel, string>>

interface Shard {
  readonly connection: RedisPort
  readonly streams: ShardStreams
  /** Where reading goes on, for the inbox and the control stream (fan-out: the FanoutOrder's). */
  readonly cursors: { direct: string, control: string }
}

/**
 * Reads this instance's streams, shard by shard: one XREAD BLOCK per shard, on a connection of its
 * own (a blocked connection takes no other command, and on a Cluster each shard may live on another
 * primary), from cursors kept here: across reconnects, and across a Redis restart without
 * persistence too, since new entry ids sort after the old ones. Hands each message to the channel's
 * handlers once: an entry sent twice (a write re-sent after a reconnect) or a copy of one read
 * before the connection dropped (written again after a restart) is dropped. Fan-out messages are
 * handed out in the one order every instance uses (fanout-order.ts).
 */
export class BusReader {
  private readonly shards: Shard[]
  private readonly fanout: FanoutOrder
  private readonly handlers: { [C in Channel]: Array<(envelope: Envelope<never>) => void> } = { direct: [], control: [], fanout: [] }
  /** Per sender (stream, instance and boot), the newest sequence number read. */
  private readonly seen = new Map<string, number>()
  /** Per sender, what this reader had read before a connection dropped (a copy of `seen`). */
  private readBefore = new Map<string, number>()
  /**
   * Per sender, what this reader read since a connection dropped: a write the new server kept (a
   * replica that got it, promoted) may be read there and then come again as a copy.
   */
  private readSince = new Map<string, Set<number>>()
  private reading: Promise<void[]> | undefined
  private stopped = false
  /** Settles when close() is called: ends the wait on an XREAD that may never settle (see close). */
  private readonly closing: Promise<typeof CLOSED>
  private endWait: () => void = () => {}

  /**
   * `connections[k]` reads `streams[k]`. `cmd` fences and re-reads the fan-out shards. `heard` learns
   * of each sender whose message is handed out, before the handlers see it. `consumed` learns,
   * after each read that took entries from this instance's inbox on shard k (which nobody else
   * reads), the newest entry read and the bytes of the field values read: they may be deleted.
   */
  constructor (
    connections: readonly RedisPort[],
    streams: readonly ShardStreams[],
    cmd: RedisPort,
    private readonly heard: (instance: string) => void,
    private readonly log: ScaleLogger,
    private readonly consumed: (shard: number, newest: string, bytes: number) => void = () => {}
  ) {
    this.closing = new Promise((resolve) => { this.endWait = () => { resolve(CLOSED) } })
    this.shards = connections.map((connection, k) => ({ connection, streams: streams[k] as ShardStreams, cursors: { direct: '0-0', control: '0-0' } }))
    this.fanout = fanoutOrder(cmd, streams.map((s) => s.fanout), (shard, entry, position) => {
      this.dispatch('fanout', this.shards[shard]?.streams.fanout ?? '', entry, position)
    }, log)
    for (const { connection } of this.shards) {
      // 'close' comes once per drop while the connection was up (and again per failed attempt, with
      // nothing new to note): what was read until then.
      let up = true
      connection.on('ready', () => { up = true })
      connection.on('close', () => {
        if (!up) return
        up = false
        this.readBefore = new Map(this.seen)
        this.readSince = new Map()
      })
    }
  }

  /** Starts at the streams' tails, read on `cmd`: nothing written before this instance started is for it. */
  async seekTails (cmd: RedisPort): Promise<void> {
    await Promise.all([
      this.fanout.seekTails(cmd),
      ...this.shards.flatMap((shard) => (['direct', 'control'] as const).map(async (channel) => {
        shard.cursors[channel] = await cmd.lastId(shard.streams[channel])
      }))
    ])
  }

  start (): void {
    this.reading = Promise.all(this.shards.map(async (_, k) => { await this.read(k) }))
  }

  on (channel: Channel, handler: (envelope: Envelope<never>) => void): void {
    this.handlers[channel].push(handler)
  }

  /** Position of the newest fan-out entry handed to the handlers (or skipped). */
  fanoutCursor (): string {
    return this.fanout.cursor()
  }

  /** Fan-out entries after `position`, with the positions the handlers would have seen. */
  async fanoutAfter (position: string, limit: number): Promise<Array<{ position: string, entry: StreamEntry }>> {
    return await this.fanout.after(position, limit)
  }

  /** No XREAD after the ones in flight. */
  stop (): void {
    this.stopped = true
    this.fanout.stop()
  }

  /**
   * Ends the XREADs in flight (by closing the connections) and waits for the loops to end. While
   * Redis is away an XREAD waits in ioredis' queue, and closing the connection between two
   * reconnection attempts does not reject it: the loops stop waiting for it instead.
   */
  async close (): Promise<void> {
    this.stop()
    this.endWait()
    await Promise.all(this.shards.map(async ({ connection }) => { await connection.close(false) }))
    await this.reading
  }

  private async read (k: number): Promise<void> {
    const { connection, streams, cursors } = this.shards[k] as Shard
    const byKey = new Map(CHANNELS.map((channel) => [streams[channel], channel]))
    while (!this.stopped) {
      let reply
      try {
        const read = connection.xread([[streams.direct, cursors.direct], [streams.control, cursors.control], [streams.fanout, this.fanout.readFrom(k)]], BLOCK_MS, READ_COUNT)
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
        if (channel === 'fanout') {
          this.fanout.add(k, entries)
          continue
        }
        let bytes = 0
        for (const entry of entries) {
          cursors[channel] = entry[0]
          if (channel === 'direct') bytes += valueBytes(entry)
          this.dispatch(channel, key, entry, entry[0])
        }
        if (channel === 'direct' && entries.length > 0) this.consumed(k, cursors.direct, bytes)
      }
    }
  }

  private dispatch (channel: Channel, stream: string, entry: StreamEntry, position: string): void {
    const parsed = parseEntry<never>(entry)
    if (parsed === undefined) {
      this.log.warn({ entry: entry[0], channel }, 'scale-out: ignored a bus entry that is not ours')
      return
    }
    const { envelope, boot, seq, replaces } = parsed
    // A sender's writes to one stream are in order (one connection, ioredis re-sends in order).
    const sender = `${stream}|${envelope.from}|${boot}`
    if (seq <= (this.seen.get(sender) ?? 0)) return
    const since = this.readSince.get(sender) ?? new Set<number>()
    // A copy written again after a restart, of a message read before it or since: seen already.
    if (replaces !== undefined && (replaces <= (this.readBefore.get(sender) ?? 0) || since.has(replaces))) {
      this.seen.set(sender, seq)
      return
    }
    this.seen.set(sender, seq)
    since.add(seq)
    if (since.size > READ_SINCE) since.delete(since.values().next().value as number)
    this.readSince.set(sender, since)
    this.heard(envelope.from)
    const handed = position === envelope.position ? envelope : { ...envelope, position }
    for (const handler of this.handlers[channel]) {
      try {
        handler(handed)
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
