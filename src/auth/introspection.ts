import type { Principal } from '../protocol/principal.js'
import { invalidToken, isAuthFailure, unavailable, type AuthFailure } from './errors.js'
import { fetchJson, PeerError } from './fetch.js'
import { audienceMatches, CLOCK_TOLERANCE_MS } from './strategy.js'
import { TokenCache } from './token-cache.js'

// RFC 7662 token introspection, for opaque access tokens. Every answer costs the authorization
// server a request, so active answers are cached (keyed by the token's SHA-256) until the token
// expires, at most ACTIVE_MAX_MS so a revocation is seen within minutes; inactive answers only
// for INACTIVE_MS, long enough to absorb a burst of retries of one bad token and no more.

const ACTIVE_MAX_MS = 5 * 60_000
const ACTIVE_NO_EXP_MS = 60_000
const INACTIVE_MS = 5_000
const MAX_INTROSPECTION_BYTES = 64 * 1024
/**
 * Introspection calls in flight at once. Made-up opaque tokens each cost a call (nothing about
 * them is cached yet), so without a bound a flood of them would be relayed to the authorization
 * server at the attacker's rate; beyond it, new tokens get 503 until calls finish.
 */
export const MAX_CONCURRENT_INTROSPECTIONS = 64

export interface IntrospectorOptions {
  clientId: string
  clientSecret: string
  /** The endpoint of the current metadata (it may change when discovery is refreshed). */
  endpoint: () => string | undefined
  /** The expected `iss` of the current metadata. */
  issuer: () => string
  audience?: string | undefined
  /** Turns active claims into the principal (throws an AuthFailure when it cannot). */
  toPrincipal: (claims: Record<string, unknown>) => Principal
  timeoutMs: number
  cacheSize: number
  signal: AbortSignal
}

type Answer = Principal | AuthFailure

export class Introspector {
  readonly #options: IntrospectorOptions
  readonly #cache: TokenCache<Answer>
  /** Concurrent requests with the same token share one introspection call. */
  readonly #inflight = new Map<string, Promise<Answer>>()
  readonly #authorization: string

  constructor (options: IntrospectorOptions) {
    this.#options = options
    this.#cache = new TokenCache(options.cacheSize)
    // RFC 6749 §2.3.1: id and secret are form-encoded before the Basic encoding.
    const form = (value: string): string => encodeURIComponent(value).replaceAll('%20', '+')
    this.#authorization = 'Basic ' + Buffer.from(`${form(options.clientId)}:${form(options.clientSecret)}`).toString('base64')
  }

  /** The active token's principal, or throws: 401 inactive or unacceptable, 503 introspection unavailable. */
  async introspect (token: string, cacheKey: string): Promise<Principal> {
    let answer = this.#cache.get(cacheKey)
    if (answer === undefined) {
      let pending = this.#inflight.get(cacheKey)
      if (pending === undefined) {
        if (this.#inflight.size >= MAX_CONCURRENT_INTROSPECTIONS) {
          throw unavailable('Too many tokens are being checked at once; retry later')
        }
        pending = this.#call(token, cacheKey).finally(() => this.#inflight.delete(cacheKey))
        this.#inflight.set(cacheKey, pending)
      }
      answer = await pending
    }
    if (answer instanceof Error) throw answer
    return answer
  }

  clear (): void {
    this.#cache.clear()
  }

  async #call (token: string, cacheKey: string): Promise<Answer> {
    const endpoint = this.#options.endpoint()
    // Fixed failures, not cached: nothing about this token is known yet.
    if (endpoint === undefined) return invalidToken('Opaque tokens are not accepted: the authorization server offers no introspection')
    let status: number
    let body: unknown
    try {
      ({ status, body } = await fetchJson(endpoint, {
        method: 'POST',
        headers: { authorization: this.#authorization, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
        timeoutMs: this.#options.timeoutMs,
        maxBytes: MAX_INTROSPECTION_BYTES,
        signal: this.#options.signal
      }))
    } catch (error) {
      /* c8 ignore next: fetchJson throws PeerErrors only */
      if (!(error instanceof PeerError)) throw error
      return unavailable('The authorization server could not be reached; retry later')
    }
    // 401/403 here means this server's own client credentials were refused: not the caller's fault.
    if (status !== 200 || typeof body !== 'object' || body === null) {
      return unavailable('The authorization server refused the introspection request; retry later')
    }
    const now = Date.now()
    const answer = this.#judge(body as Record<string, unknown>, now)
    if (answer instanceof Error) {
      this.#cache.set(cacheKey, answer, now + INACTIVE_MS, now)
    } else {
      const exp = answer.expiresAt
      this.#cache.set(cacheKey, answer, exp === undefined ? now + ACTIVE_NO_EXP_MS : Math.min(exp, now + ACTIVE_MAX_MS), now)
    }
    return answer
  }

  #judge (claims: Record<string, unknown>, now: number): Answer {
    if (claims.active !== true) return invalidToken('The token is not active')
    // A time claim that is not a number is a broken answer, not "no expiry" (RFC 7662 §2.2: NumericDate).
    for (const name of ['exp', 'nbf', 'iat']) {
      const value = claims[name]
      if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value))) {
        return invalidToken('The token has a malformed time claim')
      }
    }
    if (typeof claims.exp === 'number' && claims.exp * 1000 + CLOCK_TOLERANCE_MS <= now) {
      return invalidToken('The token has expired')
    }
    if (typeof claims.nbf === 'number' && claims.nbf * 1000 - CLOCK_TOLERANCE_MS > now) {
      return invalidToken('The token is not valid yet')
    }
    if (claims.iss !== undefined && claims.iss !== this.#options.issuer()) {
      return invalidToken('The token issuer is not accepted')
    }
    const audience = this.#options.audience
    if (audience !== undefined && !audienceMatches(claims.aud, audience)) {
      return invalidToken('The token audience is not accepted')
    }
    try {
      return this.#options.toPrincipal(claims)
    } catch (error) {
      /* c8 ignore next: toPrincipal throws AuthFailures only */
      if (!isAuthFailure(error)) throw error
      return error
    }
  }
}
