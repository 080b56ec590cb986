import type { DirectMessage, Envelope, ScaleLogger } from '../../ports.js'
import { comparePositions } from '../../position.js'
import type { RedisPort } from '../client.js'
import type { Keys } from '../keys.js'

type EventMessage = Extract<DirectMessage, { type: 'event' }>
/** An `event` as the bus writes it: with `prev`, the log position before it, which the gateway alone reads. */
export type EventEntry = EventMessage & { prev?: string }

/** Sessions whose stream-0 order is tracked at most (their stream 0 is held here). */
const MAX_TRACKED = 100_000
/** Messages handed out ahead of their own inbox entry, remembered per session at most. */
const MAX_FILLED = 1000

interface Tracked {
  /** Position of the newest message handed out. */
  last: string
  /** Messages read from the log ahead of their inbox entry: that entry is dropped when it comes. */
  readonly filled: Set<string>
}

/**
 * The gateway's side of `deliver0`. A stream-0 message is logged in the session's slot, then put in
 * the gateway's inbox (another slot, so not in the same script): messages sent by two instances can
 * reach the inbox in another order than the log's. Each carries the log position before it (`prev`),
 * so the gateway notices a message still on its way: it reads the missing ones from the log and
 * hands everything out in log order, then drops the late entry when it comes. Tracked from a claim
 * made here (whose tail is the first `prev` expected) until the stream is released or the session
 * ends. Nothing else is dropped: which messages a stream writes stays the transport's decision.
 */
export class Stream0Order {
  private readonly tracked = new Map<string, Tracked>()
  /** Per session, a gap being filled: the messages that came meanwhile wait behind it. */
  private readonly filling = new Map<string, Promise<void>>()

  constructor (private readonly cmd: RedisPort, private readonly keys: Keys, private readonly self: string, private readonly log: ScaleLogger) {}

  /** A claim of stream 0 succeeded: `instance` gets the messages logged after `tail`. */
  claimed (session: string, instance: string, tail: string, previous: string | undefined): void {
    if (instance !== this.self) {
      this.tracked.delete(session)
      return
    }
    // Claimed again from itself: the messages still on their way are this instance's as before.
    if (previous === this.self && this.tracked.has(session)) return
    this.tracked.delete(session)
    this.tracked.set(session, { last: tail, filled: new Set() })
    if (this.tracked.size > MAX_TRACKED) this.tracked.delete(this.tracked.keys().next().value as string)
  }

  /** The stream is released or the session ended. */
  forget (session: string): void {
    this.tracked.delete(session)
  }

  /** Hands `envelope` out to `deliver`, after the messages logged before it that have not come yet. */
  event (entry: Envelope<EventEntry>, deliver: (envelope: Envelope<EventMessage>) => void): void {
    const { prev, ...message } = entry.message
    const envelope = { ...entry, message }
    const session = envelope.message.session
    const before = this.filling.get(session)
    const done = before === undefined ? this.take(envelope, prev, deliver) : before.then(async () => { await this.take(envelope, prev, deliver) })
    if (done === undefined) return
    this.filling.set(session, done)
    void done.finally(() => { if (this.filling.get(session) === done) this.filling.delete(session) })
  }

  private take (envelope: Envelope<EventMessage>, prev: string | undefined, deliver: (envelope: Envelope<EventMessage>) => void): Promise<void> | undefined {
    const { session, position } = envelope.message
    const tracked = this.tracked.get(session)
    if (tracked === undefined) {
      deliver(envelope)
      return undefined
    }
    if (tracked.filled.delete(position)) return undefined
    if (prev === undefined || comparePositions(prev, tracked.last) <= 0 || comparePositions(position, tracked.last) <= 0) {
      if (comparePositions(position, tracked.last) > 0) tracked.last = position
      deliver(envelope)
      return undefined
    }
    return this.fill(envelope, tracked, deliver)
  }

  private async fill (envelope: Envelope<EventMessage>, tracked: Tracked, deliver: (envelope: Envelope<EventMessage>) => void): Promise<void> {
    const { session, position } = envelope.message
    let missed: Array<[string, string[]]> = []
    try {
      missed = await this.cmd.xrange(this.keys.log0(session), `(${tracked.last}`, `(${position}`)
    } catch (error) {
      // Unreadable: they come as their entries do (a client resuming reads the log).
      this.log.warn({ err: error, session }, 'scale-out: could not read the stream-0 messages still on their way')
    }
    for (const [id, fields] of missed) {
      const json = fields[1] ?? ''
      if (json === '') continue
      tracked.filled.add(id)
      if (tracked.filled.size > MAX_FILLED) tracked.filled.delete(tracked.filled.values().next().value as string)
      deliver({ ...envelope, message: { type: 'event', session, position: id, json } })
    }
    if (comparePositions(position, tracked.last) > 0) tracked.last = position
    deliver(envelope)
  }
}
