import { cancelOf } from '../../jsonrpc/cancel.js'
import type { ClassifiedMessage, JsonRpcId } from '../../jsonrpc/messages.js'
import type { Session } from '../../protocol/session.js'

/** Cancels kept for requests not arrived yet, and for how long (ms). */
const MAX_EARLY_CANCELS = 1000
const EARLY_CANCEL_MS = 10_000

/**
 * Cancels that arrived before their request: a round-robin balancer may deliver the cancel
 * first, and a legacy SSE POST forwarded from another instance can be overtaken by a cancel
 * POSTed here. Kept by `{session} {id}` until a deadline, checked when a request starts here;
 * bounded (the oldest goes first) and short-lived.
 */
export class EarlyCancels {
  private readonly kept = new Map<string, { until: number, reason: string }>()

  /** Keeps a cancel of `requestId` for when it starts here. */
  remember (session: string, requestId: JsonRpcId, reason: string): void {
    if (this.kept.size >= MAX_EARLY_CANCELS) this.kept.delete(this.kept.keys().next().value as string)
    this.kept.set(`${session} ${JSON.stringify(requestId)}`, { until: Date.now() + EARLY_CANCEL_MS, reason })
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
    this.kept.delete(key)
    if (early.until >= Date.now()) session.cancelRequest(requestId, early.reason)
  }
}
