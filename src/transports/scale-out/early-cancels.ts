import { cancelOf } from '../../jsonrpc/cancel.js'
import type { ClassifiedMessage, JsonRpcId } from '../../jsonrpc/messages.js'
import type { Session } from '../../protocol/session.js'

/** Cancels kept for requests not arrived yet, all sessions together, and for how long (ms). */
const MAX_EARLY_CANCELS = 1000
const EARLY_CANCEL_MS = 10_000
/** Cancels kept per session: the race they are for (a cancel overtaking its request) is rare. */
const MAX_EARLY_CANCELS_PER_SESSION = 16
/**
 * Characters kept, all cancels together (session, request id and reason of each). Each is
 * bounded already (a request id by `MAX_REQUEST_ID_LENGTH`, a reason by 256 characters): this
 * makes the whole a bound of its own, whatever a cancel may carry tomorrow.
 */
const MAX_EARLY_CANCEL_CHARS = 256 * 1024

interface Kept {
  readonly session: string
  readonly until: number
  readonly reason: string
  readonly chars: number
}

/**
 * Cancels that arrived before their request: a round-robin balancer may deliver the cancel
 * first, and a legacy SSE POST forwarded from another instance can be overtaken by a cancel
 * POSTed here. Kept by `{session} {id}` until a deadline, checked when a request starts here.
 * Every cancel sent to another instance's session lands here on every instance, so what one
 * client can make each instance hold is bounded: 16 per session (a 17th is dropped), 1000 and
 * 256 Ki characters for all (the oldest go first), 10 s each.
 */
export class EarlyCancels {
  private readonly kept = new Map<string, Kept>()
  private readonly perSession = new Map<string, number>()
  private chars = 0

  /** Keeps a cancel of `requestId` for when it starts here. */
  remember (session: string, requestId: JsonRpcId, reason: string): void {
    const key = `${session} ${JSON.stringify(requestId)}`
    const now = Date.now()
    this.dropExpired(now)
    this.forget(key)
    if ((this.perSession.get(session) ?? 0) >= MAX_EARLY_CANCELS_PER_SESSION) return
    const entry: Kept = { session, until: now + EARLY_CANCEL_MS, reason, chars: key.length + reason.length }
    while (this.kept.size > 0 && (this.kept.size >= MAX_EARLY_CANCELS || this.chars + entry.chars > MAX_EARLY_CANCEL_CHARS)) {
      this.forget(this.kept.keys().next().value as string)
    }
    this.kept.set(key, entry)
    this.perSession.set(session, (this.perSession.get(session) ?? 0) + 1)
    this.chars += entry.chars
  }

  /**
   * Legacy SSE, on the stream's instance: a cancel for a request the session is not running is
   * kept, since the request may still come. True when kept: there is nothing else to do with it.
   */
  keep (session: Session, classified: ClassifiedMessage): boolean {
    const cancel = cancelOf(classified)
    if (cancel === undefined || session.isHandling(cancel.requestId)) return false
    this.remember(session.id, cancel.requestId, cancel.reason)
    return true
  }

  /** A request just started here: a cancel for it that came first aborts it now. */
  applyTo (session: Session, requestId: JsonRpcId): void {
    if (this.kept.size === 0) return
    const key = `${session.id} ${JSON.stringify(requestId)}`
    const early = this.kept.get(key)
    if (early === undefined) return
    this.forget(key)
    if (early.until >= Date.now()) session.cancelRequest(requestId, early.reason)
  }

  /** How many cancels are kept, and their characters (for tests of the bounds). */
  get size (): { count: number, chars: number } {
    return { count: this.kept.size, chars: this.chars }
  }

  /** Entries are kept in arrival order, all for the same time: the expired ones are first. */
  private dropExpired (now: number): void {
    for (const [key, entry] of this.kept) {
      if (entry.until >= now) return
      this.forget(key)
    }
  }

  private forget (key: string): void {
    const entry = this.kept.get(key)
    if (entry === undefined) return
    this.kept.delete(key)
    this.chars -= entry.chars
    const left = (this.perSession.get(entry.session) ?? 1) - 1
    if (left === 0) this.perSession.delete(entry.session)
    else this.perSession.set(entry.session, left)
  }
}
