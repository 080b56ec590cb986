// Bus positions are opaque to the transports except for their order, which resumption needs.

/**
 * Orders two bus positions: Redis stream ids (`{ms}-{seq}`) or plain counters (in memory). Negative
 * when `a` comes first.
 */
export function comparePositions (a: string, b: string): number {
  const [am = '0', as = '0'] = a.split('-')
  const [bm = '0', bs = '0'] = b.split('-')
  if (am.length !== bm.length) return am.length - bm.length
  if (am !== bm) return am < bm ? -1 : 1
  if (as.length !== bs.length) return as.length - bs.length
  return as === bs ? 0 : (as < bs ? -1 : 1)
}
