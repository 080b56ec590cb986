/** How long a session's shared state outlives its last use when sessions never idle out (`idleTimeoutMs: 0`). */
export const NO_IDLE_LIFETIME_MS = 24 * 3600_000

/**
 * The TTL of everything a session holds in the shared store (its record, its event logs):
 * `idleTimeoutMs`, or a day without one, since an instance that forgets a session (it stopped, or
 * evicted it) takes with it the only reason to delete that session's keys. One value for the
 * record and the logs, so neither outlives the other by more than a touch.
 */
export function storedLifetimeMs (idleTimeoutMs: number): number {
  return idleTimeoutMs > 0 ? idleTimeoutMs : NO_IDLE_LIFETIME_MS
}
