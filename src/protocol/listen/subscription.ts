import type { JsonRpcId, JsonRpcMessage } from '../../jsonrpc/messages.js'
import type { Session } from '../session.js'
import { atDeadline } from '../../util/timers.js'
import type { ListenFilter } from './filter.js'
import { stampSubscriptionId, SUBSCRIPTION_ID_META, type ListenFrame } from './frame.js'

export const ACKNOWLEDGED_METHOD = 'notifications/subscriptions/acknowledged'

/**
 * One open `subscriptions/listen` stream: the request that opened it (its id is
 * the subscription id) and the session it answers on. Every message goes out
 * through `session.send` as related to that request, so the transport puts it
 * on the request's own stream (HTTP) or on the shared channel (stdio) without
 * knowing what a subscription is.
 */
export class ListenSubscription {
  readonly id: JsonRpcId
  readonly filter: ListenFilter
  /** The client the stream counts against (`Caller.client`), for the per-client bound. */
  readonly client: string
  readonly session: Session
  /**
   * Settles once the subscription is over: with the `complete` result to send
   * when the server ended it, with undefined when the client cancelled or
   * went away (then nothing more is sent, not even a response).
   */
  readonly ended: Promise<Record<string, unknown> | undefined>
  /**
   * Settles once whatever ends the stream has been handed to the transport
   * (the result, and on stdio the cancel after it); see {@link settle}.
   */
  readonly settled: Promise<void>
  private resolveEnded!: (result: Record<string, unknown> | undefined) => void
  private resolveSettled!: () => void
  private readonly release: (subscription: ListenSubscription) => void
  private live = true
  private cancelDeadline: (() => void) | undefined

  constructor (session: Session, id: JsonRpcId, filter: ListenFilter, client: string, release: (subscription: ListenSubscription) => void) {
    this.session = session
    this.id = id
    this.filter = filter
    this.client = client
    this.release = release
    this.ended = new Promise((resolve) => { this.resolveEnded = resolve })
    this.settled = new Promise((resolve) => { this.resolveSettled = resolve })
  }

  /** Called by the listen method once the stream's last message is out. */
  settle (): void {
    this.resolveSettled()
  }

  get open (): boolean {
    return this.live && !this.session.closed
  }

  /** Sends one notification on this stream, stamped with the subscription id; false once it has ended. */
  notify (method: string, params?: Record<string, unknown>): boolean {
    if (!this.open) return false
    this.session.send({ jsonrpc: '2.0', method, params: stampSubscriptionId(params, this.id) }, this.id)
    return true
  }

  /** Sends one notification serialized once for every stream it goes to (see `frame.ts`); false once ended. */
  notifyFrame (frame: ListenFrame): boolean {
    if (!this.open) return false
    const json = frame(this.id)
    this.session.sendSerialized(json, () => JSON.parse(json) as JsonRpcMessage, this.id)
    return true
  }

  /**
   * The stream ends at `deadline` (epoch ms), as the server ends it: the credential it was opened
   * with stops being valid then, and a stream must not outlive it (the client listens again with a
   * valid one, which the auth guard checks).
   */
  finishAt (deadline: number): void {
    this.cancelDeadline = atDeadline(deadline, () => { this.finish() })
  }

  /** The server ends the stream (shutdown, its credential expired): the client gets the `complete` result, its graceful-end signal. */
  finish (): void {
    if (!this.end()) return
    this.resolveEnded({ resultType: 'complete', _meta: { [SUBSCRIPTION_ID_META]: this.id } })
  }

  /** The client cancelled or disconnected: the slot is freed and nothing more is sent. */
  drop (): void {
    if (this.end()) this.resolveEnded(undefined)
  }

  private end (): boolean {
    if (!this.live) return false
    this.live = false
    this.cancelDeadline?.()
    this.release(this)
    return true
  }
}
