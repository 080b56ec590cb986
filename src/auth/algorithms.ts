// The JWT algorithms the framework accepts, and their families, in one place: the option schema,
// the boot rules (HMAC takes a secret, the others a key) and OAuth (an authorization server signs
// asymmetrically) all read them from here. `none` is not one of them, on purpose.

export const HMAC_ALGORITHMS = ['HS256', 'HS384', 'HS512'] as const
export const ASYMMETRIC_ALGORITHMS = [
  'RS256', 'RS384', 'RS512',
  'PS256', 'PS384', 'PS512',
  'ES256', 'ES384', 'ES512',
  'EdDSA'
] as const
export const JWT_ALGORITHMS = [...HMAC_ALGORITHMS, ...ASYMMETRIC_ALGORITHMS] as const
export type JwtAlgorithm = (typeof JWT_ALGORITHMS)[number]

const hmac: ReadonlySet<string> = new Set(HMAC_ALGORITHMS)
const asymmetric: ReadonlySet<string> = new Set(ASYMMETRIC_ALGORITHMS)

/** HS256/HS384/HS512: verified with a shared secret. */
export function isHmacAlgorithm (algorithm: string): boolean {
  return hmac.has(algorithm)
}

/** RS*, PS*, ES*, EdDSA: verified with a public key. */
export function isAsymmetricAlgorithm (algorithm: string): boolean {
  return asymmetric.has(algorithm)
}
