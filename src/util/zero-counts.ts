/**
 * Per-client counts that drop to zero and rise again on every request of a client that sends one
 * at a time. Deleting a Map's last entries makes V8 (Node 20) shrink it, a new table allocated on
 * every request; so a count at zero stays in the map, and the zeros are swept in one pass when the
 * map has grown to a threshold that doubles past what stays (O(1) amortized, and a map of idle
 * clients stays bounded by about twice the clients active at once, or {@link MIN_SWEEP_AT}).
 */
export class ZeroCountSweeper {
  /** Entries kept (zeros included) before the first sweep. */
  static readonly MIN_SWEEP_AT = 1024
  private sweepAt = ZeroCountSweeper.MIN_SWEEP_AT

  /** Before adding a new key to `counts`: drops its zeros if it has grown to the threshold. */
  beforeAdd (counts: Map<string, number>): void {
    if (counts.size < this.sweepAt) return
    for (const [key, count] of counts) {
      if (count === 0) counts.delete(key)
    }
    this.sweepAt = Math.max(ZeroCountSweeper.MIN_SWEEP_AT, 2 * counts.size)
  }
}
