import type { FastifyRequest } from 'fastify'
import type { Principal } from '../protocol/principal.js'
import { InvalidOptionsError } from '../errors.js'
import { invalidToken } from './errors.js'
import { decodeHeader, type JoseHeader } from './jose.js'
import { JwksKeys } from './jwks.js'
import { VerificationKey } from './keys.js'
import {
  audienceMatches, bearerToken, cacheUntil, errorParams, param, principalFromClaims, VERIFIED_TOKEN_CACHE_SIZE, type AuthMethodOptions, type Strategy
} from './strategy.js'
import { TokenCache } from './token-cache.js'

type JwtOptions = AuthMethodOptions<'jwt'>

export interface JwtCheck {
  /** The allow-list, enforced on the header before any key is looked up. */
  algorithms: ReadonlySet<string>
  keyFor: (header: JoseHeader) => VerificationKey | Promise<VerificationKey>
  /** Expected `iss`, exact match. */
  issuer?: string | undefined
  /** Expected member of `aud`. */
  audience?: string | undefined
  /** Refuse tokens without `exp` (OAuth access tokens must have one, RFC 9068 §2.2). */
  requireExp: boolean
  /** The `typ` header values accepted (undefined in the set = no `typ`); unset = any. */
  types?: ReadonlySet<string | undefined> | undefined
}

/**
 * Verifies a compact JWS: header, allow-list, key, signature, `exp`/`nbf` (in the key's verifier),
 * then issuer and audience. Returns the payload; throws an AuthFailure with a fixed description.
 */
export async function verifyJwt (token: string, check: JwtCheck): Promise<Record<string, unknown>> {
  const header = decodeHeader(token)
  if (header === undefined) throw invalidToken('The token is malformed')
  // Before the key lookup: `none`, or an HMAC alg aimed at a public key, never reaches a key.
  if (!check.algorithms.has(header.alg)) throw invalidToken('The token algorithm is not accepted')
  if (check.types !== undefined && !check.types.has(header.typ)) throw invalidToken('The token type is not accepted')
  const key = await check.keyFor(header)
  const payload = key.verify(header.alg, token)
  if (check.issuer !== undefined && payload.iss !== check.issuer) throw invalidToken('The token issuer is not accepted')
  if (check.audience !== undefined && !audienceMatches(payload.aud, check.audience)) {
    throw invalidToken('The token audience is not accepted')
  }
  if (check.requireExp && typeof payload.exp !== 'number') throw invalidToken('The token has no expiry')
  return payload
}

/** Timeout of a key set request, in milliseconds. */
const JWKS_TIMEOUT_MS = 5000

/** `type: 'jwt'`: a shared secret, a public key, or a key set URL. */
export function createJwtStrategy (options: JwtOptions, signal: AbortSignal): Strategy {
  const toleranceMs = options.clockToleranceSeconds * 1000
  const check: JwtCheck = {
    algorithms: new Set(options.algorithms),
    keyFor: keySource(options, toleranceMs, signal),
    issuer: options.issuer,
    audience: options.audience,
    requireExp: options.requireExp
  }
  const cache = new TokenCache<Principal>(VERIFIED_TOKEN_CACHE_SIZE)

  async function verify (token: string, cacheKey: string): Promise<Principal> {
    const principal = principalFromClaims('jwt', await verifyJwt(token, check))
    cache.set(cacheKey, principal, cacheUntil(principal, toleranceMs))
    return principal
  }

  return {
    authenticate (request: FastifyRequest): Principal | Promise<Principal> {
      const token = bearerToken(request, options.maxTokenBytes)
      const cacheKey = TokenCache.key(token)
      // The hot path: a token seen before costs one SHA-256 and a map lookup, no signature check.
      return cache.get(cacheKey) ?? verify(token, cacheKey)
    },
    challenge (_request, failure) {
      return ['Bearer ' + param('realm', 'mcp'), ...errorParams(failure)].join(', ')
    },
    redactParams: ['access_token'],
    clockToleranceMs: toleranceMs,
    close () { cache.clear() }
  }
}

function keySource (options: JwtOptions, toleranceMs: number, signal: AbortSignal): JwtCheck['keyFor'] {
  if (options.secret !== undefined) {
    const key = VerificationKey.secret(options.secret, toleranceMs)
    return () => key
  }
  if (options.publicKey !== undefined) {
    const key = parsePublicKey(options.publicKey, toleranceMs)
    return () => key
  }
  /* c8 ignore next: resolve.ts refuses a jwt config with none of the three */
  if (options.jwksUri === undefined) throw new Error('jwt auth needs secret, publicKey or jwksUri')
  const jwks = new JwksKeys({ uri: options.jwksUri, clockToleranceMs: toleranceMs, timeoutMs: JWKS_TIMEOUT_MS, signal })
  return async (header) => await jwks.resolve(header)
}

// resolve.ts checks the PEM armour; whether the key inside parses is only known here, at boot.
function parsePublicKey (pem: string, toleranceMs: number): VerificationKey {
  try {
    return VerificationKey.publicKey(pem, toleranceMs)
  } catch {
    const message = 'could not be parsed as an RSA, EC or Ed25519/Ed448 public key'
    throw Object.assign(new InvalidOptionsError(`  auth.options.publicKey: ${message}`),
      { problems: [{ path: 'auth.options.publicKey', message }] })
  }
}
