import { isSecureUrl } from '../util/loopback.js'
import { describeUrl, fetchJson, PeerError } from './fetch.js'

/** The members of RFC 8414 authorization server metadata the resource server uses. */
export interface AuthServerMetadata {
  issuer: string
  jwks_uri?: string
  introspection_endpoint?: string
  scopes_supported?: string[]
}

const MAX_METADATA_BYTES = 256 * 1024

/**
 * Where to look, in order (RFC 8414 §3.1 and §5):
 * 1. RFC 8414: `/.well-known/oauth-authorization-server` inserted between the host and the
 *    issuer's path (`https://as/tenant` -> `https://as/.well-known/oauth-authorization-server/tenant`);
 * 2. OpenID Connect Discovery: `/.well-known/openid-configuration` appended to the issuer.
 */
export function discoveryUrls (issuerUrl: string): string[] {
  const url = new URL(issuerUrl)
  const path = url.pathname.replace(/\/+$/, '')
  return [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`
  ]
}

/**
 * Fetches and checks the authorization server metadata of `issuerUrl`. Only a non-200 answer
 * moves on to the next location: a network failure or timeout would fail there too and double the
 * wait, and a wrong document is a configuration error to report, not to work around.
 * Throws a PeerError whose message names URLs (origin and path) and never a secret.
 */
export async function discover (issuerUrl: string, timeoutMs: number, signal: AbortSignal): Promise<AuthServerMetadata> {
  const deadline = Date.now() + timeoutMs
  const misses: string[] = []
  for (const url of discoveryUrls(issuerUrl)) {
    const { status, body } = await fetchJson(url, { timeoutMs: Math.max(1, deadline - Date.now()), budgetMs: timeoutMs, maxBytes: MAX_METADATA_BYTES, signal })
    if (status !== 200) {
      misses.push(`${describeUrl(url)} answered ${status}`)
      continue
    }
    return checkMetadata(body, issuerUrl, url)
  }
  throw new PeerError(misses.join('; '))
}

function checkMetadata (body: unknown, issuerUrl: string, from: string): AuthServerMetadata {
  if (typeof body !== 'object' || body === null) throw new PeerError(`${describeUrl(from)} is not a JSON object`)
  const md = body as Record<string, unknown>
  // RFC 8414 §3.3: the issuer in the document must be the one we asked about, or a server could
  // hand out another issuer's identity (and keys). A trailing slash is the only slack allowed.
  if (typeof md.issuer !== 'string' || trimSlash(md.issuer) !== trimSlash(issuerUrl)) {
    throw new PeerError(`${describeUrl(from)} names issuer ${typeof md.issuer === 'string' ? describeUrl(md.issuer) : 'none'}, expected ${describeUrl(issuerUrl)}`)
  }
  const metadata: AuthServerMetadata = { issuer: md.issuer }
  for (const key of ['jwks_uri', 'introspection_endpoint'] as const) {
    const value = md[key]
    if (value === undefined) continue
    if (typeof value !== 'string' || !isSecureUrl(value)) {
      throw new PeerError(`${describeUrl(from)} has an unusable ${key} (expected an https URL, or http on loopback)`)
    }
    metadata[key] = value
  }
  if (metadata.jwks_uri === undefined && metadata.introspection_endpoint === undefined) {
    throw new PeerError(`${describeUrl(from)} has neither jwks_uri nor introspection_endpoint: no token could be validated`)
  }
  if (Array.isArray(md.scopes_supported)) {
    metadata.scopes_supported = md.scopes_supported.filter((s): s is string => typeof s === 'string')
  }
  return metadata
}

function trimSlash (url: string): string {
  return url.endsWith('/') ? url.slice(0, -1) : url
}
