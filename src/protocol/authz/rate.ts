/** One request counted against a budget. */
export interface RateHit {
  /** Requests counted in the current window, this one included. */
  readonly count: number
  /** Milliseconds until the current window ends and the count starts over. */
  readonly resetMs: number
}

/**
 * Where rate-limit budgets are counted (fixed windows, one counter per key). The transports give
 * one with each request: @fastify/rate-limit's stores, in memory or, with `scaleOut`, in Redis so
 * that every instance draws on one budget (`src/transports/rate-counters.ts`).
 */
export interface RateCounter {
  /** Counts one request against `key` in a window of `windowMs`; `max` lets a store stop counting past it. */
  hit: (key: string, max: number, windowMs: number) => Promise<RateHit>
  /** Releases what the counter holds (a connection), when it holds anything. */
  close?: () => Promise<void>
}
