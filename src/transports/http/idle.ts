import type { ProtocolServer } from '../../protocol/protocol-server.js'

/** The sweep never runs more often than this (ms), however short the timeout. */
const MIN_SWEEP_MS = 10
/** ...nor less often than this, so a long timeout is still enforced within half a minute. */
const MAX_SWEEP_MS = 30_000

/** How often an idle sweep runs for `idleTimeoutMs` (ms): twice per timeout, within bounds. */
export function sweepEvery (idleTimeoutMs: number): number {
  return Math.min(Math.max(Math.floor(idleTimeoutMs / 2), MIN_SWEEP_MS), MAX_SWEEP_MS)
}

/**
 * Closes sessions that received no message for `idleTimeoutMs`, with one
 * unref'd timer for all sessions. A session with a request still being handled
 * is not idle: a long tool call must not be cut off by its own silence.
 * Returns the function that stops the sweep; `idleTimeoutMs` 0 disables it.
 */
export function startIdleSweep (core: ProtocolServer, idleTimeoutMs: number): () => void {
  if (idleTimeoutMs === 0) return () => {}
  const timer = setInterval(() => {
    const cutoff = Date.now() - idleTimeoutMs
    for (const session of [...core.sessions.values()]) {
      if (session.lastActivity <= cutoff && session.inflightCount === 0) session.close('idle timeout')
    }
  }, sweepEvery(idleTimeoutMs))
  timer.unref()
  return () => { clearInterval(timer) }
}
