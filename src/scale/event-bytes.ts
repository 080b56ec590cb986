import { ByteLedger } from '../protocol/limits.js'

interface Held {
  readonly client: string
  bytes: number
}

/**
 * What the events kept for resumption hold, per client and all sessions together
 * (`eventStoreBytesPerClient`, `eventStoreBytesTotal`), beside each store's bound per session
 * (`eventStoreBytes`). A built-in store asks {@link room} before it keeps an event and keeps at
 * most that much of the session's events, dropping the session's own oldest first and then the
 * event itself (so a client's sessions never take room from another client's), and tells
 * {@link settle} what the session holds after.
 *
 * Per process: with `scaleOut` each instance counts the sessions it wrote events for, at what the
 * shared log held at its last write there, until the session ends or its copy here closes.
 */
export class EventBytes {
  private readonly ledger: ByteLedger
  private readonly sessions = new Map<string, Held>()
  private readonly refused: (limit: string) => void

  /** `refused` is told the option's name each time a bound keeps events out. */
  constructor (maxTotal: number, maxPerClient: number, refused: (limit: string) => void) {
    this.ledger = new ByteLedger(maxTotal, maxPerClient)
    this.refused = refused
  }

  /** Bytes held now, all clients together. */
  get total (): number {
    return this.ledger.total
  }

  /** Bytes the sessions of `client` hold now. */
  of (client: string): number {
    return this.ledger.of(client)
  }

  /**
   * How many bytes of events `sessionId` (of `client`) may hold once it keeps one more of `bytes`:
   * what it holds, plus what is left of its client's share and of everyone's, at most `sessionMax`.
   * When that is less than the session would hold, a bound cuts in and is counted.
   */
  room (sessionId: string, client: string, bytes: number, sessionMax: number): number {
    let held = this.sessions.get(sessionId)
    if (held === undefined) {
      held = { client, bytes: 0 }
      this.sessions.set(sessionId, held)
    }
    const clientLeft = this.ledger.maxPerClient - this.ledger.of(held.client)
    const allLeft = this.ledger.maxOverall - this.ledger.total
    const room = Math.min(sessionMax, held.bytes + Math.max(0, Math.min(clientLeft, allLeft)))
    if (room < sessionMax && held.bytes + bytes > room) {
      this.refused(clientLeft <= allLeft ? 'eventStoreBytesPerClient' : 'eventStoreBytesTotal')
    }
    return room
  }

  /** After a store kept (or dropped) events of `sessionId`: they hold `bytes` now. */
  settle (sessionId: string, bytes: number): void {
    const held = this.sessions.get(sessionId)
    // Released while a shared store answered: nothing to count any more.
    if (held === undefined || held.bytes === bytes) return
    this.ledger.give(held.client, held.bytes)
    this.ledger.hold(held.client, bytes)
    held.bytes = bytes
  }

  /** The session's events are gone, or no longer this process's to count: gives their bytes back. */
  release (sessionId: string): void {
    const held = this.sessions.get(sessionId)
    if (held === undefined) return
    this.sessions.delete(sessionId)
    this.ledger.give(held.client, held.bytes)
  }
}
