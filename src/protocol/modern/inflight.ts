import { ErrorCode, McpError } from '../../jsonrpc/errors.js'
import type { Telemetry } from '../../telemetry/index.js'
import type { Caller } from '../caller.js'
import { inflightBytesError } from '../dispatcher.js'
import type { ByteLedger } from '../limits.js'
import type { Session } from '../session.js'
import { ZeroCountSweeper } from '../../util/zero-counts.js'

/**
 * The 2026-07-28 requests being answered (each on a throwaway session), counted per client: a
 * stateless request belongs to no session whose `maxInflightRequests` could bound it, so the bound
 * applies to its client instead, with the bytes it holds. Shutdown reaches them through
 * {@link sessions}.
 */
export class ModernInflight {
  private readonly requests = new Map<Session, { client: string, bytes: number }>()
  /**
   * Requests in flight per client. A client's count stays in the map at 0 when its last request
   * ends: a client sending one request at a time would otherwise delete and re-add its entry on
   * every request, the dearest step of this bookkeeping (see {@link ZeroCountSweeper}).
   */
  private readonly perClient = new Map<string, number>()
  private readonly zeros = new ZeroCountSweeper()
  private readonly maxPerClient: number
  private readonly bytes: ByteLedger
  private readonly telemetry: Telemetry

  constructor (maxPerClient: number, bytes: ByteLedger, telemetry: Telemetry) {
    this.maxPerClient = maxPerClient
    this.bytes = bytes
    this.telemetry = telemetry
  }

  /** The throwaway sessions of the requests in flight. */
  sessions (): IterableIterator<Session> {
    return this.requests.keys()
  }

  /** Counts `session`'s request against `caller.client`; throws -32600, counting nothing, past a bound. */
  begin (session: Session, caller: Caller): void {
    const client = caller.client
    const held = this.perClient.get(client) ?? 0
    const max = this.maxPerClient
    if (held >= max) {
      this.telemetry.limitRefusal('maxInflightRequests')
      throw new McpError(ErrorCode.InvalidRequest, `Too many requests in flight for this client (maxInflightRequests: ${max}); wait for answers before sending more`, { maxInflightRequests: max, limit: 'maxInflightRequests', max })
    }
    const bytes = caller.bytes
    const over = this.bytes.take(client, bytes)
    if (over !== undefined) throw inflightBytesError(over, this.bytes, this.telemetry)
    session.client = client
    if (held === 0) this.zeros.beforeAdd(this.perClient)
    this.perClient.set(client, held + 1)
    this.requests.set(session, { client, bytes })
  }

  /** Gives back what `session`'s request held. */
  end (session: Session): void {
    const taken = this.requests.get(session)
    if (taken === undefined) return
    this.requests.delete(session)
    this.perClient.set(taken.client, (this.perClient.get(taken.client) ?? 1) - 1)
    this.bytes.give(taken.client, taken.bytes)
  }
}
