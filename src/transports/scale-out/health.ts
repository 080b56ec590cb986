import type { FastifyBaseLogger } from 'fastify'

/**
 * How the scale-out engine is doing, seen from the operations nobody waits for (an event not
 * recorded, a TTL not extended, a message not handed on). An outage would fail every one of them:
 * the first failure is logged, the others are counted, and the first success after them logs the
 * recovery with the count.
 */
export class EngineHealth {
  private readonly log: FastifyBaseLogger
  /** Engine operations that failed since the engine last worked. */
  private failures = 0

  constructor (log: FastifyBaseLogger) {
    this.log = log
  }

  /** An engine operation failed where nobody waits for it: counted, logged once. */
  failed (error: unknown): void {
    if (this.failures++ === 0) this.log.error({ err: error }, 'MCP scale-out engine failed (logged once until it works again)')
  }

  /** Lets an engine operation run on its own: its failure is {@link failed}, its success may end an outage. */
  background (pending: Promise<unknown>): void {
    pending.then(() => {
      if (this.failures === 0) return
      this.log.warn({ failed: this.failures }, 'MCP scale-out engine works again (failed: operations that failed meanwhile)')
      this.failures = 0
    }, (error: unknown) => { this.failed(error) })
  }
}
