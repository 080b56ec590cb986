import type { ScaleLogger } from '../../ports.js'
import { comparePositions } from '../../position.js'
import type { RedisPort, StreamEntry } from '../client.js'

// The order in which an instance hands out fan-out messages, and the positions it gives them.
// Every instance must hand them out in one order, the same for all (a session resumed on another
// instance says where it was with one position, and what comes after it must be the same there).
//
// With one fan-out stream that is the stream's order, and a position is the entry's id. With
// several (`shards`, one per Cluster primary, so that no primary carries every broadcast), the
// order is by entry id, then shard, and a position encodes both (`{ms}-{seq * shards + shard}`,
// which sorts as positions do). An entry is handed out only once every shard is known to hold no
// earlier one: the reader fences the other shards up to it (mcpFence: XSETID, so that Redis gives
// later entries larger ids, whatever the primaries' clocks say), reading what they held meanwhile.

/** Entries read at most per fence or resume read. */
const READ_COUNT = 1000
/** Pause before fencing again after a failure (Redis away, a slot moving). */
const RETRY_MS = 100

export interface FanoutOrder {
  /** Reads the tails: nothing written before this instance started is for it. */
  seekTails: (cmd: RedisPort) => Promise<void>
  /** Entries the reader of `shard` read from its fan-out stream, in stream order. */
  add: (shard: number, entries: StreamEntry[]) => void
  /** Where the reader of `shard` goes on reading its fan-out stream. */
  readFrom: (shard: number) => string
  /** Position of the newest entry handed out (at start: the tails). */
  cursor: () => string
  /** The entries after `position` (exclusive), oldest first, at most `limit`, with their positions. */
  after: (position: string, limit: number) => Promise<Array<{ position: string, entry: StreamEntry }>>
  stop: () => void
}

/** `emit`: hands one entry out, with its position. */
export type Emit = (shard: number, entry: StreamEntry, position: string) => void

export function fanoutOrder (cmd: RedisPort, streams: readonly string[], emit: Emit, log: ScaleLogger): FanoutOrder {
  return streams.length === 1 ? new OneStream(cmd, streams[0] as string, emit) : new MergedStreams(cmd, streams, emit, log)
}

class OneStream implements FanoutOrder {
  private last = '0-0'

  constructor (private readonly cmd: RedisPort, private readonly stream: string, private readonly emit: Emit) {}

  async seekTails (cmd: RedisPort): Promise<void> {
    this.last = await cmd.lastId(this.stream)
  }

  add (shard: number, entries: StreamEntry[]): void {
    for (const entry of entries) {
      this.last = entry[0]
      this.emit(shard, entry, entry[0])
    }
  }

  readFrom (): string {
    return this.last
  }

  cursor (): string {
    return this.last
  }

  async after (position: string, limit: number): Promise<Array<{ position: string, entry: StreamEntry }>> {
    const entries = await this.cmd.xrange(this.stream, exclusive(position), '+', limit)
    return entries.map((entry) => ({ position: entry[0], entry }))
  }

  stop (): void {}
}

class MergedStreams implements FanoutOrder {
  /** Per shard, the newest id read (or fenced past): where its reader goes on. */
  private readonly received: string[]
  /** Per shard, entries read and not handed out yet, oldest first. */
  private readonly pending: StreamEntry[][]
  /** Every shard is complete up to this id. */
  private fenced = '0-0'
  /** The newest id read on any shard: what to fence up to next. */
  private target = '0-0'
  private emitted = '0-0'
  private running = false
  private stopped = false

  constructor (private readonly cmd: RedisPort, private readonly streams: readonly string[], private readonly emit: Emit, private readonly log: ScaleLogger) {
    this.received = streams.map(() => '0-0')
    this.pending = streams.map(() => [])
  }

  async seekTails (): Promise<void> {
    const tails = await Promise.all(this.streams.map(async (stream) => await this.fence(stream, '0-0', '0-0')))
    let start = '0-0'
    for (const [last] of tails) if (comparePositions(last, start) > 0) start = last
    // Every shard's next entry sorts after the newest of all: the start is the same for every shard.
    if (start !== '0-0') await Promise.all(this.streams.map(async (stream) => await this.fence(stream, start, start)))
    this.received.fill(start)
    this.fenced = start
    this.target = start
    this.emitted = encode(start, this.streams.length - 1, this.streams.length)
  }

  add (shard: number, entries: StreamEntry[]): void {
    this.take(shard, entries)
    this.run()
  }

  readFrom (shard: number): string {
    return this.received[shard] ?? '0-0'
  }

  cursor (): string {
    return this.emitted
  }

  async after (position: string, limit: number): Promise<Array<{ position: string, entry: StreamEntry }>> {
    const shards = this.streams.length
    // Up to what this instance has handed out: what comes later reaches the caller live, in order.
    const end = decode(this.emitted, shards)
    const start = position === '0' || position === '0-0' ? undefined : decode(position, shards)
    const reads = await Promise.all(this.streams.map(async (stream, shard) => {
      const from = start === undefined ? '-' : shard > start.shard ? start.id : `(${start.id}`
      const to = shard <= end.shard ? end.id : `(${end.id}`
      const entries = await this.cmd.xrange(stream, from, to, limit)
      return entries.map((entry) => ({ shard, entry }))
    }))
    return reads.flat().sort(byIdThenShard).slice(0, limit).map(({ shard, entry }) => ({ position: encode(entry[0], shard, shards), entry }))
  }

  stop (): void {
    this.stopped = true
  }

  private take (shard: number, entries: StreamEntry[]): void {
    for (const entry of entries) {
      if (comparePositions(entry[0], this.received[shard] ?? '0-0') <= 0) continue
      this.pending[shard]?.push(entry)
      this.received[shard] = entry[0]
      if (comparePositions(entry[0], this.target) > 0) this.target = entry[0]
    }
  }

  /** Fences up to the newest id read, hands out what is complete, again while more was read meanwhile. */
  private run (): void {
    if (this.running || this.stopped) return
    this.running = true
    void (async () => {
      while (!this.stopped && comparePositions(this.target, this.fenced) > 0) {
        const upTo = this.target
        try {
          await Promise.all(this.streams.map(async (stream, shard) => {
            if (comparePositions(this.received[shard] ?? '0-0', upTo) >= 0) return
            await this.fenceShard(stream, shard, upTo)
          }))
        } catch (error) {
          this.log.warn({ err: error }, 'scale-out: could not fence the fan-out shards; retrying')
          await new Promise((resolve) => setTimeout(resolve, RETRY_MS).unref())
          continue
        }
        this.fenced = upTo
        this.handOut(upTo)
      }
      this.running = false
    })()
  }

  private async fenceShard (stream: string, shard: number, upTo: string): Promise<void> {
    for (;;) {
      const [, entries] = await this.fence(stream, upTo, this.received[shard] ?? '0-0')
      this.take(shard, entries)
      if (entries.length < READ_COUNT) break
    }
    // Nothing up to `upTo` can appear on it any more: its reader may go on from there.
    if (comparePositions(upTo, this.received[shard] ?? '0-0') > 0) this.received[shard] = upTo
  }

  private async fence (stream: string, upTo: string, after: string): Promise<[string, StreamEntry[]]> {
    return await this.cmd.script('mcpFence', [stream], [upTo, after, READ_COUNT]) as [string, StreamEntry[]]
  }

  /** Hands out every pending entry up to `upTo`, by id then shard. */
  private handOut (upTo: string): void {
    const ready: Array<{ shard: number, entry: StreamEntry }> = []
    this.pending.forEach((entries, shard) => {
      let n = 0
      while (n < entries.length && comparePositions((entries[n] as StreamEntry)[0], upTo) <= 0) ready.push({ shard, entry: entries[n++] as StreamEntry })
      entries.splice(0, n)
    })
    ready.sort(byIdThenShard)
    for (const { shard, entry } of ready) {
      this.emitted = encode(entry[0], shard, this.streams.length)
      this.emit(shard, entry, this.emitted)
    }
  }
}

function byIdThenShard (a: { shard: number, entry: StreamEntry }, b: { shard: number, entry: StreamEntry }): number {
  return comparePositions(a.entry[0], b.entry[0]) || a.shard - b.shard
}

/** The position of entry `id` of `shard`: sorts by id, then shard. */
function encode (id: string, shard: number, shards: number): string {
  const [ms = '0', seq = '0'] = id.split('-')
  return `${ms}-${BigInt(seq) * BigInt(shards) + BigInt(shard)}`
}

function decode (position: string, shards: number): { id: string, shard: number } {
  const [ms = '0', rest = '0'] = position.split('-')
  const q = BigInt(/^\d+$/.test(rest) ? rest : '0')
  return { id: `${ms}-${q / BigInt(shards)}`, shard: Number(q % BigInt(shards)) }
}

/** `(id`: XRANGE from after `id`; the empty log's position `0` means from the start. */
export function exclusive (position: string): string {
  return position === '0' || position === '0-0' ? '-' : `(${position}`
}
