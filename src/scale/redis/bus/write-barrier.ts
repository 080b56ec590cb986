/**
 * The bus writes this instance issued that Redis has yet to acknowledge. A request is answered
 * once those issued before its answer are in Redis ({@link settled}): its client, told that the
 * request is done, may make the next one on another instance, whose writes must come after
 * (causal order). Without it an answer could overtake its own broadcast on a slow link to Redis,
 * and the next call's broadcast, made on a faster instance, reach every stream first.
 *
 * Writes settle in any order (a stream-0 message takes two round trips), so each tracked write
 * extends a chain that settles once it and everything tracked before it have.
 */
export class WriteBarrier {
  private pending = 0
  private chain: Promise<void> = Promise.resolve()
  /** An answer waited `timeoutMs` in vain: Redis is away, and the next answers do not wait until it is back. */
  private stalled = false

  /**
   * `timeoutMs`: an answer waits this long at most (`redisTimeoutMs`). While Redis is away the
   * writes wait in order in the client's queue; one answer waiting in vain is enough.
   */
  constructor (private readonly timeoutMs: number) {}

  /** Counts `write` until it settles (failed writes too: nothing more will come of them); returns it. */
  track<T> (write: Promise<T>): Promise<T> {
    this.pending++
    const done = (): void => {
      // The chain is dropped whenever nothing is pending, so it never grows beyond one burst.
      if (--this.pending === 0) this.chain = Promise.resolve()
    }
    const settled = write.then(done, done)
    const before = this.chain
    this.chain = before.then(async () => { await settled })
    return write
  }

  /**
   * Settles once every write tracked so far has, or after `timeoutMs`; undefined when none is
   * pending (an answer with nothing to wait for does not wait a turn), or while an earlier wait
   * timed out and its writes are still pending.
   */
  settled (): Promise<void> | undefined {
    if (this.pending === 0 || this.stalled) return undefined
    const chain = this.chain
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.stalled = true
        void chain.then(() => { this.stalled = false })
        resolve()
      }, this.timeoutMs)
      timer.unref()
      void chain.then(() => {
        clearTimeout(timer)
        resolve()
      })
    })
  }
}
