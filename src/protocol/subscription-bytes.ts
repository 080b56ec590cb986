import { ErrorCode } from '../jsonrpc/errors.js'
import { ByteLedger, limitError } from './limits.js'
import type { Session } from './session.js'

interface Charge {
  readonly client: string
  bytes: number
}

/**
 * What the resource subscriptions of 2025-11-25 hold, per client and all together
 * (`maxSubscriptionBytesPerClient`, `maxSubscriptionBytes`): a session's URIs count against the
 * client that opened it while it holds them, and are given back when it unsubscribes or closes.
 *
 * Each change counts the session's whole set again (at most `maxSubscriptions` URIs): with
 * `scaleOut` a session's copy here is refreshed from its record, which other instances change too,
 * so the set may hold URIs this ledger never saw subscribed. They count from the next change here.
 */
export class SubscriptionBytes {
  private readonly ledger: ByteLedger
  private readonly charges = new Map<Session, Charge>()

  constructor (maxOverall: number, maxPerClient: number) {
    this.ledger = new ByteLedger(maxOverall, maxPerClient)
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
   * Subscribes `session` to `uri`, counted against `client` (the session's, or the caller's for a
   * copy rebuilt elsewhere); throws -32600 naming the bound when the URI would cross one, and the
   * session is left as it was.
   */
  subscribe (session: Session, client: string, uri: string): void {
    if (session.subscriptions.has(uri)) return
    const charge = this.chargeOf(session, client)
    this.settle(session, charge)
    const bytes = Buffer.byteLength(uri, 'utf8')
    const over = this.ledger.take(charge.client, bytes)
    if (over !== undefined) {
      const limit = over === 'perClient' ? 'maxSubscriptionBytesPerClient' : 'maxSubscriptionBytes'
      const max = over === 'perClient' ? this.ledger.maxPerClient : this.ledger.maxOverall
      const whose = over === 'perClient' ? 'the sessions of one client' : 'all sessions together'
      throw limitError(ErrorCode.InvalidRequest, `Too many bytes of subscribed URIs: ${whose} may hold ${max} bytes (${limit}); unsubscribe first`, limit, max)
    }
    session.subscriptions.add(uri)
    charge.bytes += bytes
  }

  unsubscribe (session: Session, uri: string): void {
    session.subscriptions.delete(uri)
    const charge = this.charges.get(session)
    if (charge !== undefined) this.settle(session, charge)
  }

  private chargeOf (session: Session, client: string): Charge {
    let charge = this.charges.get(session)
    if (charge === undefined) {
      charge = { client, bytes: 0 }
      this.charges.set(session, charge)
      const mine = charge
      session.onClose(() => {
        this.ledger.give(mine.client, mine.bytes)
        this.charges.delete(session)
      })
    }
    return charge
  }

  /** Makes the charge what the session's set holds now. */
  private settle (session: Session, charge: Charge): void {
    let bytes = 0
    for (const uri of session.subscriptions) bytes += Buffer.byteLength(uri, 'utf8')
    if (bytes === charge.bytes) return
    this.ledger.give(charge.client, charge.bytes)
    this.ledger.hold(charge.client, bytes)
    charge.bytes = bytes
  }
}
