import { createHash } from 'node:crypto'

/**
 * A bounded map from a token to what verifying it proved, each entry with its own expiry.
 *
 * Keys are SHA-256 digests of the token, never the token itself: a heap dump or a debugger shows
 * no usable credential, and every key has the same small size whatever the token length.
 * Eviction is insertion order (the oldest entry goes first); a hot token that gets evicted is
 * simply verified again, so no LRU bookkeeping is paid on the hit path. Expired entries are
 * dropped when read, and no timer is needed.
 */
export class TokenCache<V> {
  readonly #entries = new Map<string, { value: V, expiresAt: number }>()
  readonly #max: number

  /** `max` = 0 disables the cache: `get` always misses and `set` stores nothing. */
  constructor (max: number) {
    this.#max = max
  }

  static key (token: string): string {
    return createHash('sha256').update(token).digest('base64')
  }

  get (key: string, now = Date.now()): V | undefined {
    const entry = this.#entries.get(key)
    if (entry === undefined) return undefined
    if (now >= entry.expiresAt) {
      this.#entries.delete(key)
      return undefined
    }
    return entry.value
  }

  /** Stores `value` until `expiresAt` (epoch ms); an entry already expired is not stored. */
  set (key: string, value: V, expiresAt: number, now = Date.now()): void {
    if (this.#max === 0 || expiresAt <= now) return
    this.#entries.delete(key)
    if (this.#entries.size >= this.#max) {
      // Map iterates in insertion order: the first key is the oldest entry.
      const oldest = this.#entries.keys().next()
      if (oldest.done !== true) this.#entries.delete(oldest.value)
    }
    this.#entries.set(key, { value, expiresAt })
  }

  delete (key: string): void {
    this.#entries.delete(key)
  }

  get size (): number {
    return this.#entries.size
  }

  clear (): void {
    this.#entries.clear()
  }
}
