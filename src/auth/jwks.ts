import { invalidToken, unavailable } from './errors.js'
import { describeUrl, fetchJson, PeerError } from './fetch.js'
import type { JoseHeader } from './jose.js'
import { VerificationKey } from './keys.js'

// A small JSON Web Key Set client, written here rather than taken from get-jwks because the
// guard needs two things get-jwks does not give: a refetch on an unknown `kid` that is bounded by
// a cooldown (get-jwks fetches once per distinct unknown kid, so a flood of made-up kids becomes a
// flood of requests to the key server), and a real timeout and size bound on the fetch.

export interface JwksOptions {
  /** The key set URL (already checked at boot: https, or http on loopback). */
  uri: string
  /** Clock skew on exp/nbf, in milliseconds, given to every key's verifier. */
  clockToleranceMs: number
  /** Timeout of one key set request, in milliseconds. */
  timeoutMs: number
  /** Aborts fetches when the guard closes. */
  signal: AbortSignal
  /** At most one refetch per this many ms, whatever asks for it. Default 2000. */
  cooldownMs?: number
  /** A key set older than this is refetched on the next request, in ms. Default 600000 (10 min). */
  maxAgeMs?: number
}

/** Keys read from one set; more are ignored (a real issuer publishes a handful). */
const MAX_KEYS = 100
const MAX_JWKS_BYTES = 512 * 1024

export class JwksKeys {
  readonly #options: Required<JwksOptions>
  #byKid = new Map<string, VerificationKey>()
  #all: VerificationKey[] = []
  #fetchedAt = -Infinity
  #attemptedAt = -Infinity
  #inflight: Promise<void> | undefined

  constructor (options: JwksOptions) {
    this.#options = { cooldownMs: 2000, maxAgeMs: 600_000, ...options }
  }

  /**
   * The key for a token header. Refetches the set when it is stale, or when the `kid` is unknown
   * and the cooldown has passed (key rotation without restart). Throws an AuthFailure: 401 for
   * an unknown kid, 503 when the set could never be fetched.
   */
  async resolve (header: JoseHeader): Promise<VerificationKey> {
    const now = Date.now()
    let refreshed = false
    if (now - this.#fetchedAt >= this.#options.maxAgeMs && this.#mayFetch(now)) {
      await this.#refresh()
      refreshed = true
    }
    let key = this.#lookup(header)
    if (key === undefined && !refreshed && this.#mayFetch(now)) {
      await this.#refresh()
      key = this.#lookup(header)
    }
    if (key !== undefined) return key
    if (this.#fetchedAt === -Infinity) {
      // Never had a key set: the token may be fine, the key server is not. 503, not 401, so the
      // client keeps its token and retries.
      throw unavailable('The signing keys could not be fetched; retry later')
    }
    throw invalidToken('The token signing key is unknown')
  }

  #mayFetch (now: number): boolean {
    return this.#inflight !== undefined || now - this.#attemptedAt >= this.#options.cooldownMs
  }

  #lookup (header: JoseHeader): VerificationKey | undefined {
    if (header.kid !== undefined) return this.#byKid.get(header.kid)
    // No kid: only unambiguous when the set has a single key.
    return this.#all.length === 1 ? this.#all[0] : undefined
  }

  /** One fetch at a time; concurrent callers share it. A failure keeps the previous keys. */
  async #refresh (): Promise<void> {
    this.#inflight ??= this.#fetch().finally(() => { this.#inflight = undefined })
    return this.#inflight
  }

  async #fetch (): Promise<void> {
    this.#attemptedAt = Date.now()
    const { uri, timeoutMs, signal, clockToleranceMs } = this.#options
    try {
      const { status, body } = await fetchJson(uri, { timeoutMs, maxBytes: MAX_JWKS_BYTES, signal })
      const keys = (body as { keys?: unknown } | undefined)?.keys
      if (status !== 200 || !Array.isArray(keys)) {
        throw new PeerError(`${describeUrl(uri)} answered ${status} without a "keys" list`)
      }
      const byKid = new Map<string, VerificationKey>()
      const all: VerificationKey[] = []
      for (const jwk of keys.slice(0, MAX_KEYS)) {
        if (typeof jwk !== 'object' || jwk === null) continue
        const key = VerificationKey.fromJwk(jwk as Record<string, unknown>, clockToleranceMs)
        if (key === undefined) continue
        all.push(key)
        const kid = (jwk as { kid?: unknown }).kid
        if (typeof kid === 'string' && !byKid.has(kid)) byKid.set(kid, key)
      }
      // The whole set is replaced: a key the issuer withdrew stops verifying at once.
      this.#byKid = byKid
      this.#all = all
      this.#fetchedAt = Date.now()
    } catch {
      // Nothing to log from here (the guard never logs): the caller answers 503 while no key
      // set was ever read, 401 for an unknown kid otherwise, and the next refetch retries.
    }
  }
}
