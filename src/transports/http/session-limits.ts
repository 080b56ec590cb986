import type { FastifyRequest } from 'fastify'
import { AtCapacityError, SessionQuotaError } from '../../errors.js'
import type { ProtocolServer } from '../../protocol/protocol-server.js'
import type { Session } from '../../protocol/session.js'
import { MAX_TIMER_MS } from '../../util/timers.js'
import { clientOf } from './caller.js'

export interface SessionLimitsOptions {
  /** Sessions open at once, all clients together. */
  maxSessions: number
  /** Sessions open at once for one client (its identity, or its address without auth). */
  maxSessionsPerClient: number
  /** How long a new session may wait for its client to complete initialization, in ms. */
  sessionInitTimeoutMs: number
}

/**
 * What keeps one client from taking every session slot: `maxSessions` overall, a share per
 * client, and a short life for sessions whose client never completes initialization (an
 * `initialize` costs the client one request and no connection; unanswered, it would hold its
 * slot for the whole idle timeout). Shared by both HTTP transports, so a client's share counts
 * its legacy SSE and Streamable HTTP sessions together.
 */
export class SessionLimits {
  private readonly core: ProtocolServer
  private readonly options: SessionLimitsOptions
  private readonly perClient = new Map<string, number>()
  /**
   * Sessions waiting for their client to come back, with their deadlines. Every deadline is
   * creation + the same timeout, so insertion order is deadline order: a sweep reads from the
   * front and stops at the first one still in time.
   */
  private readonly pending = new Map<Session, { deadline: number, late: () => void }>()
  private timer: NodeJS.Timeout | undefined

  constructor (core: ProtocolServer, options: SessionLimitsOptions) {
    this.core = core
    this.options = options
  }

  /**
   * Takes a slot for a new session of `request`'s client: throws 503 when the server is full, 429
   * when this client holds its share already. Returns the client, for {@link track}.
   */
  checkRoom (request: FastifyRequest): string {
    if (this.core.sessionCount >= this.options.maxSessions) {
      this.core.telemetry.limitRefusal('maxSessions')
      throw new AtCapacityError()
    }
    const client = clientOf(request)
    if ((this.perClient.get(client) ?? 0) >= this.options.maxSessionsPerClient) {
      this.core.telemetry.limitRefusal('maxSessionsPerClient')
      throw new SessionQuotaError()
    }
    return client
  }

  /** Counts `session` against `client`'s share until it closes. */
  track (session: Session, client: string): void {
    this.perClient.set(client, (this.perClient.get(client) ?? 0) + 1)
    session.onClose(() => {
      const left = (this.perClient.get(client) ?? 1) - 1
      if (left <= 0) this.perClient.delete(client)
      else this.perClient.set(client, left)
    })
  }

  /**
   * `session` is closed unless {@link established} is called within `sessionInitTimeoutMs`; `late`
   * replaces that close (scale-out: the client may have come back to another instance).
   */
  expectClient (session: Session, late = (): void => { session.close('not initialized in time') }): void {
    this.pending.set(session, { deadline: Date.now() + this.options.sessionInitTimeoutMs, late })
    session.onClose(() => { this.pending.delete(session) })
    if (this.timer === undefined) this.arm()
  }

  /** The client came back (initialized, and used its session): the session lives by the idle timeout from now on. */
  established (session: Session): void {
    this.pending.delete(session)
  }

  close (): void {
    clearTimeout(this.timer)
    this.timer = undefined
    this.pending.clear()
  }

  private arm (): void {
    const first = this.pending.values().next()
    if (first.done === true) {
      this.timer = undefined
      return
    }
    // Clamped: past Node's timer range a timeout would fire at once, and again, and again.
    this.timer = setTimeout(() => { this.sweep() }, Math.min(Math.max(first.value.deadline - Date.now(), 0), MAX_TIMER_MS))
    this.timer.unref()
  }

  private sweep (): void {
    const now = Date.now()
    for (const [session, { deadline, late }] of this.pending) {
      if (deadline > now) break
      // Deleted here, not only by the close listener: a session closed already would never leave.
      this.pending.delete(session)
      late()
    }
    this.arm()
  }
}
