/**
 * A Map for tables that hold one entry most of the time: the requests a session is handling, the
 * answers a Streamable HTTP session is collecting. Clients send one request at a time on a session,
 * and a 2026-07-28 request's throwaway session holds exactly one, so the first entry lives in a slot
 * of its own and a Map is made only when a second one is added while the first is still there.
 *
 * Why not a Map: V8 (Node 20) shrinks a Map whose entries fall below a quarter of its capacity, and
 * the smallest table counts as too big for zero entries, so deleting the last entry allocates a new
 * table; and a Map made per request is two allocations more. On every call, that showed in the
 * allocation profile of the 2026-07-28 path (issue 25).
 *
 * Keys compare with `===` (as Map's SameValueZero does for the JSON-RPC ids used here: strings and
 * finite numbers). Iteration yields the slot's entry, then the others in insertion order.
 */
export class SoloMap<K, V> {
  private soloKey: K | undefined
  private soloValue: V | undefined
  private occupied = false
  private others: Map<K, V> | undefined

  get size (): number {
    return (this.occupied ? 1 : 0) + (this.others?.size ?? 0)
  }

  get (key: K): V | undefined {
    if (this.occupied && this.soloKey === key) return this.soloValue
    return this.others?.get(key)
  }

  has (key: K): boolean {
    return (this.occupied && this.soloKey === key) || this.others?.has(key) === true
  }

  set (key: K, value: V): this {
    if (this.occupied && this.soloKey === key) {
      this.soloValue = value
    } else if (this.others?.has(key) === true || this.occupied) {
      // The key is already among the others, or the slot holds another key.
      this.others ??= new Map()
      this.others.set(key, value)
    } else {
      this.soloKey = key
      this.soloValue = value
      this.occupied = true
    }
    return this
  }

  delete (key: K): boolean {
    if (this.occupied && this.soloKey === key) {
      this.occupied = false
      this.soloKey = undefined
      this.soloValue = undefined
      return true
    }
    return this.others?.delete(key) === true
  }

  clear (): void {
    this.occupied = false
    this.soloKey = undefined
    this.soloValue = undefined
    this.others = undefined
  }

  * entries (): IterableIterator<[K, V]> {
    if (this.occupied) yield [this.soloKey as K, this.soloValue as V]
    if (this.others !== undefined) yield * this.others
  }

  * values (): IterableIterator<V> {
    for (const [, value] of this.entries()) yield value
  }

  [Symbol.iterator] (): IterableIterator<[K, V]> {
    return this.entries()
  }
}
