// Wall-clock time moved forward on demand, for the bounds measured on Date.now (the JWKS refetch
// cooldown, the introspection cache): the test skips the seconds instead of sleeping through them.
// Timers are untouched, so sockets, timeouts and the server's own timers run in real time.
import type { Test } from 'tap'

export interface ShiftedClock {
  /** Moves Date.now forward by `ms` from now on. */
  advance: (ms: number) => void
}

/** Takes over Date.now for the rest of `t` (restored at its teardown), shifted by what `advance` adds. */
export function shiftedClock (t: Test): ShiftedClock {
  const real = Date.now
  let offset = 0
  Date.now = () => real() + offset
  t.teardown(() => { Date.now = real })
  return { advance: (ms) => { offset += ms } }
}
