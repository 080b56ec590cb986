// Credential checks for the two servers that have no auth of their own: the SDK (whose
// `requireBearerAuth` middleware takes a verifier the application supplies) and the hand-written
// baseline. Both use this one module so that the JWT work is the same library doing the same
// checks (signature, exp, iss, aud) with its verified-token cache on, as ours does: what differs
// between the three servers is the framework around it.
import { createPublicKey, timingSafeEqual } from 'node:crypto'
import { createVerifier } from 'fast-jwt'

export class AuthError extends Error {}

/**
 * @returns {{ scheme: 'apikey' | 'bearer', verify: (credential: string) => Promise<object> | object } | undefined}
 */
export function createCredentialCheck (auth) {
  if (auth === undefined) return undefined
  if (auth.mode === 'apikey') {
    const keys = auth.keys.map((key) => Buffer.from(key))
    return {
      scheme: 'apikey',
      header: auth.headerName.toLowerCase(),
      verify (presented) {
        const candidate = Buffer.from(presented)
        let index = -1
        for (let i = 0; i < keys.length; i++) {
          if (keys[i].length === candidate.length && timingSafeEqual(keys[i], candidate)) index = i
        }
        if (index === -1) throw new AuthError('invalid API key')
        return { subject: `key-${index}`, scopes: [] }
      }
    }
  }
  const common = { allowedIss: auth.issuer, allowedAud: auth.audience, cache: true }
  let verifier
  if (auth.mode === 'jwt-hs256') {
    verifier = createVerifier({ ...common, key: auth.secret, algorithms: ['HS256'] })
  } else if (auth.mode === 'jwt-rs256-jwks') {
    let keys
    const load = async () => {
      const response = await fetch(auth.jwksUri)
      const set = await response.json()
      return new Map(set.keys.map((jwk) => [jwk.kid, createPublicKey({ key: jwk, format: 'jwk' }).export({ type: 'spki', format: 'pem' })]))
    }
    verifier = createVerifier({
      ...common,
      algorithms: ['RS256'],
      key: async (decoded) => {
        keys ??= load()
        const key = (await keys).get(decoded.header.kid)
        if (key === undefined) throw new AuthError('unknown kid')
        return key
      }
    })
  } else {
    throw new Error(`unknown auth mode ${auth.mode}`)
  }
  return {
    scheme: 'bearer',
    header: 'authorization',
    async verify (token) {
      try {
        const claims = await verifier(token)
        return { subject: claims.sub, scopes: [], claims, expiresAt: claims.exp }
      } catch (error) {
        throw new AuthError(error.message)
      }
    }
  }
}

/** The credential carried by a request's headers, or undefined. */
export function presentedCredential (check, headers) {
  const value = headers[check.header]
  if (typeof value !== 'string') return undefined
  if (check.scheme === 'apikey') return value
  return value.startsWith('Bearer ') ? value.slice(7) : undefined
}
