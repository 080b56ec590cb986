import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify'
import type { Principal } from '../protocol/principal.js'
import { ASYMMETRIC_ALGORITHMS } from './algorithms.js'
import { discover, type AuthServerMetadata } from './discovery.js'
import { AuthDiscoveryFailedError, insufficientScope, invalidToken } from './errors.js'
import { describeUrl, PeerError } from './fetch.js'
import { Introspector } from './introspection.js'
import { JwksKeys } from './jwks.js'
import { decodeHeader } from './jose.js'
import { verifyJwt } from './jwt.js'
import {
  bearerToken, cacheUntil, CLOCK_TOLERANCE_MS, errorParams, param, principalFromClaims, VERIFIED_TOKEN_CACHE_SIZE, type AuthMethodOptions, type Strategy
} from './strategy.js'
import { TokenCache } from './token-cache.js'

type OAuthOptions = AuthMethodOptions<'oauth'>

/** RFC 9728 §3: the well-known path of protected-resource metadata. */
export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource'

/** OAuth options have no token size option: tokens over this many bytes are refused unread. */
const MAX_TOKEN_BYTES = 8192
/** When discovery is redone, in ms: metadata older than `maxAgeMs`, at most once per `retryMs`. */
export interface MetadataTiming {
  maxAgeMs: number
  retryMs: number
}
/** Hourly, so a moved jwks_uri or introspection endpoint is followed; a failure is retried after a minute. */
const METADATA_TIMING: MetadataTiming = { maxAgeMs: 60 * 60_000, retryMs: 60_000 }
/** An authorization server signs with its private keys: HMAC access tokens cannot be ours to verify. */
const ASYMMETRIC: ReadonlySet<string> = new Set(ASYMMETRIC_ALGORITHMS)
/**
 * RFC 9068 §4: a JWT access token says `typ: at+jwt` (or the full media type); anything else,
 * an ID token above all, is refused. `allowGenericJwtTyp` adds what many providers issue instead.
 */
const ACCESS_TOKEN_TYPES: ReadonlySet<string | undefined> = new Set(['at+jwt', 'application/at+jwt'])
const LENIENT_TOKEN_TYPES: ReadonlySet<string | undefined> = new Set([...ACCESS_TOKEN_TYPES, 'jwt', 'application/jwt', undefined])
/** A Host header fit to appear in a URL inside a quoted challenge parameter. */
const SAFE_HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/

/**
 * `type: 'oauth'`: an OAuth 2.1 resource server. Discovery runs here, at boot, bounded by
 * `discoveryTimeoutMs`; its failure rejects (so `ready()`/`start()` rejects) with
 * FST_MCP_AUTH_DISCOVERY_FAILED naming the issuer: a server that cannot validate a single token
 * should not start. Later refreshes run in the background and keep the last good metadata.
 */
export async function createOAuthStrategy (options: OAuthOptions, endpoints: readonly string[], signal: AbortSignal,
  timing: MetadataTiming = METADATA_TIMING): Promise<Strategy> {
  const fetchMetadata = async (): Promise<AuthServerMetadata> =>
    await discover(options.issuerUrl, options.discoveryTimeoutMs, signal)
  let metadata: AuthServerMetadata
  try {
    metadata = await fetchMetadata()
  } catch (error) {
    const reason = error instanceof PeerError ? error.message : 'the metadata could not be read'
    throw new AuthDiscoveryFailedError(describeUrl(options.issuerUrl), reason)
  }
  const newKeys = (uri: string | undefined): JwksKeys | undefined => uri === undefined
    ? undefined
    : new JwksKeys({ uri, clockToleranceMs: CLOCK_TOLERANCE_MS, timeoutMs: options.discoveryTimeoutMs, signal })
  let jwks = newKeys(metadata.jwks_uri)
  let fetchedAt = Date.now()
  let attemptedAt = fetchedAt
  let refreshing = false

  /** The metadata to use now; starts a background refresh when it is old. Never waits. */
  function current (): AuthServerMetadata {
    const now = Date.now()
    if (!refreshing && now - fetchedAt >= timing.maxAgeMs && now - attemptedAt >= timing.retryMs) {
      refreshing = true
      attemptedAt = now
      fetchMetadata().then((next) => {
        if (next.jwks_uri !== metadata.jwks_uri) jwks = newKeys(next.jwks_uri)
        metadata = next
        fetchedAt = Date.now()
      }, () => { /* keep the last good metadata; retried after timing.retryMs */ })
        .finally(() => { refreshing = false })
    }
    return metadata
  }

  // Without `audience`, the `resource` identifier is the audience: the MCP authorization spec asks
  // a server to refuse tokens issued for another resource (no token passthrough).
  const audience = options.audience ?? options.resource
  const required = options.scopes ?? []
  // MCP 2026-07-28 (basic/authorization): a resource server SHOULD NOT advertise `offline_access`;
  // refresh tokens are between the client and its authorization server. Still enforced when required.
  const advertised = required.filter((scope) => scope !== 'offline_access')
  const cache = new TokenCache<Principal>(VERIFIED_TOKEN_CACHE_SIZE)
  const introspector = new Introspector({
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    endpoint: () => current().introspection_endpoint,
    issuer: () => current().issuer,
    audience,
    toPrincipal: (claims) => principalFromClaims('oauth', claims, current().issuer),
    timeoutMs: options.discoveryTimeoutMs,
    cacheSize: options.introspectionCacheSize,
    signal
  })

  async function verify (token: string, cacheKey: string): Promise<Principal> {
    const md = current()
    // Anything that is not a compact JWS is opaque: only its issuer can tell what it means.
    if (decodeHeader(token) === undefined) return await introspector.introspect(token, cacheKey)
    const keys = jwks
    if (keys === undefined) throw invalidToken('JWT access tokens are not accepted: the authorization server publishes no keys')
    const payload = await verifyJwt(token, {
      algorithms: ASYMMETRIC,
      keyFor: async (header) => await keys.resolve(header),
      issuer: md.issuer,
      audience,
      requireExp: true,
      types: options.allowGenericJwtTyp ? LENIENT_TOKEN_TYPES : ACCESS_TOKEN_TYPES
    })
    const principal = principalFromClaims('oauth', payload)
    cache.set(cacheKey, principal, cacheUntil(principal, CLOCK_TOLERANCE_MS))
    return principal
  }

  function withScopes (principal: Principal): Principal {
    for (const scope of required) {
      if (!principal.scopes.includes(scope)) throw insufficientScope(required.join(' '))
    }
    return principal
  }

  const resource = options.resource === undefined ? undefined : new URL(options.resource)
  // RFC 9728 §3.1: the metadata URL of a resource is its URL with the well-known path inserted.
  const resourcePath = resource === undefined || resource.pathname === '/' ? undefined : resource.pathname
  const fixedMetadataUrl = resource === undefined ? undefined : `${resource.origin}${PROTECTED_RESOURCE_PATH}${resourcePath ?? ''}`

  function metadataUrl (request: FastifyRequest): string | undefined {
    if (fixedMetadataUrl !== undefined) return fixedMetadataUrl
    const origin = originOf(request)
    if (origin === undefined) return undefined
    const path = request.routeOptions.url
    return `${origin}${PROTECTED_RESOURCE_PATH}${path !== undefined && endpoints.includes(path) ? path : ''}`
  }

  return {
    authenticate (request) {
      const token = bearerToken(request, MAX_TOKEN_BYTES)
      const cacheKey = TokenCache.key(token)
      const hit = cache.get(cacheKey)
      return hit !== undefined ? withScopes(hit) : verify(token, cacheKey).then(withScopes)
    },
    challenge (request, failure) {
      const parts = errorParams(failure)
      const url = metadataUrl(request)
      if (url !== undefined) parts.push(param('resource_metadata', url))
      if (advertised.length > 0) parts.push(param('scope', advertised.join(' ')))
      return parts.length === 0 ? 'Bearer' : `Bearer ${parts.join(', ')}`
    },
    redactParams: ['access_token'],
    clockToleranceMs: CLOCK_TOLERANCE_MS,
    resourceMetadata: metadataUrl,
    async registerRoutes (app: FastifyInstance, onRequest: onRequestHookHandler[]) {
      // RFC 9728 metadata, outside auth (a client reads it to learn how to authenticate): the
      // root form, and the path-suffixed form of each MCP endpoint and of `resource`. Without a
      // configured `resource` the document names the request's Host: the Host guard runs first,
      // and the answer is kept out of shared caches, so that a forged Host is never handed out.
      const suffixes = new Set(['', ...endpoints, ...(resourcePath === undefined ? [] : [resourcePath])])
      const caching = options.resource === undefined ? 'no-store' : 'public, max-age=300'
      for (const suffix of suffixes) {
        app.get(PROTECTED_RESOURCE_PATH + suffix, { onRequest: [...onRequest] }, async (request, reply) => {
          const origin = originOf(request)
          const document: Record<string, unknown> = {
            resource: options.resource ?? (origin === undefined ? undefined : origin + suffix),
            authorization_servers: [current().issuer],
            bearer_methods_supported: ['header']
          }
          if (advertised.length > 0) document.scopes_supported = advertised
          return await reply.header('cache-control', caching).send(document)
        })
      }
    },
    close () {
      cache.clear()
      introspector.clear()
    }
  }
}

/** `scheme://host` of the request, or undefined when its Host header is unfit for a URL. */
function originOf (request: FastifyRequest): string | undefined {
  const host = request.host
  return SAFE_HOST.test(host) ? `${request.protocol}://${host}` : undefined
}
