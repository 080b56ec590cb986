import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto'
import { createRequire } from 'node:module'
import type * as FastJwt from 'fast-jwt'
import type { JwtAlgorithm } from './algorithms.js'
import { invalidToken, type AuthFailure } from './errors.js'

// fast-jwt loads with the first verification, not with the package: a server without JWT auth never
// needs it, and it is some 25 ms of a start. `require`, because verifying is synchronous.
const require = createRequire(import.meta.url)
let fastJwt: typeof FastJwt | undefined
const jwtLibrary = (): typeof FastJwt => (fastJwt ??= require('fast-jwt') as typeof FastJwt)

/** Verifies a token's signature, `exp` and `nbf`; returns its payload. Throws fast-jwt TokenErrors. */
type Verify = (token: string) => Record<string, unknown>

// Which key family each algorithm needs. Checked before handing the key to fast-jwt so that a
// token can only ever be verified with a key of its own family: this, with the allow-list on the
// header, is what closes algorithm confusion (an HS256 token "signed" with an RSA public key).
const FAMILY_OF_ALG: Readonly<Record<string, string>> = {
  HS256: 'hmac',
  HS384: 'hmac',
  HS512: 'hmac',
  RS256: 'rsa',
  RS384: 'rsa',
  RS512: 'rsa',
  PS256: 'rsa',
  PS384: 'rsa',
  PS512: 'rsa',
  ES256: 'ec:prime256v1',
  ES384: 'ec:secp384r1',
  ES512: 'ec:secp521r1',
  EdDSA: 'ed'
} satisfies Record<JwtAlgorithm, string>

function familyOf (key: KeyObject): string | undefined {
  switch (key.asymmetricKeyType) {
    case 'rsa':
    case 'rsa-pss': return 'rsa'
    case 'ec': return `ec:${key.asymmetricKeyDetails?.namedCurve ?? ''}`
    case 'ed25519':
    case 'ed448': return 'ed'
    default: return undefined
  }
}

/**
 * One verification key (an HMAC secret or a public key) with a fast-jwt verifier per algorithm,
 * built on first use and kept: creating a verifier parses the key, verifying with it does not.
 */
export class VerificationKey {
  readonly #material: string
  readonly #family: string
  /** From the JWK `alg` member: when set, the key verifies that algorithm only (RFC 7517 §4.4). */
  readonly #onlyAlg: string | undefined
  readonly #toleranceMs: number
  readonly #verifiers = new Map<string, Verify>()

  private constructor (material: string, family: string, toleranceMs: number, onlyAlg?: string) {
    this.#material = material
    this.#family = family
    this.#toleranceMs = toleranceMs
    this.#onlyAlg = onlyAlg
  }

  static secret (secret: string, toleranceMs: number): VerificationKey {
    return new VerificationKey(secret, 'hmac', toleranceMs)
  }

  /** A PEM public key or certificate. Throws when it cannot be parsed or is of no supported family. */
  static publicKey (pem: string, toleranceMs: number): VerificationKey {
    const key = createPublicKey(pem)
    const family = familyOf(key)
    if (family === undefined) throw new Error(`unsupported public key type ${String(key.asymmetricKeyType)}`)
    // fast-jwt wants SPKI PEM; a certificate or PKCS#1 key is normalised once here.
    return new VerificationKey(key.export({ format: 'pem', type: 'spki' }).toString(), family, toleranceMs)
  }

  /** A public JWK from a key set; undefined when it is not a usable signing key. */
  static fromJwk (jwk: Record<string, unknown>, toleranceMs: number): VerificationKey | undefined {
    if (jwk.use !== undefined && jwk.use !== 'sig') return undefined
    if (jwk.kty === 'oct') return undefined // a key set never publishes shared secrets
    try {
      const key = createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' })
      const family = familyOf(key)
      if (family === undefined) return undefined
      const pem = key.export({ format: 'pem', type: 'spki' }).toString()
      return new VerificationKey(pem, family, toleranceMs, typeof jwk.alg === 'string' ? jwk.alg : undefined)
    } catch {
      return undefined
    }
  }

  supports (alg: string): boolean {
    return Object.hasOwn(FAMILY_OF_ALG, alg) && FAMILY_OF_ALG[alg] === this.#family && (this.#onlyAlg === undefined || this.#onlyAlg === alg)
  }

  /** Verifies with `alg` (already checked against the allow-list); throws an AuthFailure. */
  verify (alg: string, token: string): Record<string, unknown> {
    if (!this.supports(alg)) throw invalidToken('The token signing key does not match its algorithm')
    let verify = this.#verifiers.get(alg)
    if (verify === undefined) {
      verify = jwtLibrary().createVerifier({
        key: this.#material,
        algorithms: [alg as never],
        clockTolerance: this.#toleranceMs,
        // Caching is ours (TokenCache): it holds the finished principal, and one cache serves
        // every key of a key set.
        cache: false
      }) as Verify
      this.#verifiers.set(alg, verify)
    }
    try {
      return verify(token)
    } catch (error) {
      throw fromTokenError(error)
    }
  }
}

/** fast-jwt's error codes, as fixed public sentences (its messages carry dates and claim values). */
export function fromTokenError (error: unknown): AuthFailure {
  const { TokenError } = jwtLibrary()
  const code = error instanceof TokenError ? error.code : ''
  switch (code) {
    case TokenError.codes.expired: return invalidToken('The token has expired')
    case TokenError.codes.inactive: return invalidToken('The token is not valid yet')
    case TokenError.codes.invalidSignature:
    case TokenError.codes.missingSignature: return invalidToken('The token signature is invalid')
    case TokenError.codes.invalidAlgorithm: return invalidToken('The token algorithm is not accepted')
    case TokenError.codes.invalidCritHeader: return invalidToken('The token has an unsupported critical header')
    case TokenError.codes.invalidClaimType:
    case TokenError.codes.invalidClaimValue: return invalidToken('The token has a malformed time claim')
    default: return invalidToken('The token is malformed')
  }
}
