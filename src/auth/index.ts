import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify'
import type { Principal } from '../protocol/principal.js'
import { createApiKeyStrategy } from './apikey.js'
import { credentialSource, type CredentialSource } from './credential.js'
import { isAuthFailure } from './errors.js'
import { createJwtStrategy } from './jwt.js'
import { createOAuthStrategy } from './oauth.js'
import { requestLogSerializer } from './redact.js'
import { scopeChallenge, sendAuthFailure, type AuthConfig, type Strategy } from './strategy.js'

export type { AuthConfig } from './strategy.js'
export { scopeChallenge } from './strategy.js'

/** What the HTTP transports need from authentication. */
export interface AuthGuard {
  /**
   * Route-level onRequest hook for every MCP route: verifies the credential, sets
   * `request.mcpPrincipal`, or answers 401/403 (400 for a malformed request, 503 while the key set
   * or the authorization server is unreachable) with a `WWW-Authenticate` challenge and an
   * RFC 6750 body `{ error, error_description }`. It never logs.
   */
  onRequest: onRequestHookHandler
  /**
   * Extra routes auth needs (RFC 9728 protected-resource metadata for `oauth`; none otherwise),
   * not behind auth. They are registered at the paths given, relative to `app`: call it with an
   * instance without a prefix, because the metadata lives at the host root
   * (`/.well-known/oauth-protected-resource<endpoint>`, the endpoint itself prefix included).
   * `onRequest` runs first on each of them: the Host guard, so that a rebinding Host is neither
   * served nor echoed into a document.
   */
  registerRoutes: (app: FastifyInstance, onRequest: onRequestHookHandler[]) => Promise<void>
  /**
   * Route-level `logSerializers` for the MCP routes: Fastify's request serializer with the
   * credential query parameters (the API key's `queryParam`, a stray `access_token`...) redacted.
   */
  logSerializers: { req: (request: FastifyRequest) => Record<string, unknown> }
  /**
   * Epoch ms from which this guard refuses `principal`'s credential (its expiry plus the clock
   * tolerance); undefined when it does not expire. Streams opened with it end then.
   */
  validUntil: (principal: Principal) => number | undefined
  /**
   * The `WWW-Authenticate` value of a 403 step-up on `request`: `insufficient_scope`, every scope
   * the operation needs, and (OAuth) the RFC 9728 `resource_metadata` URL.
   */
  scopeChallenge: (request: FastifyRequest, scopes: readonly string[]) => string
  /** Where the verified credential is read from again, for `ctx.http` (never stored by the guard). */
  credential: CredentialSource
  /** Stops pending fetches and drops the caches. */
  close: () => Promise<void>
}

export interface AuthGuardEnv {
  /** Paths of the MCP endpoints as mounted (prefix included), for metadata and challenges. */
  endpoints: readonly string[]
  /** Told of every refusal: the auth method and why (`missing_credential` or the RFC 6750 error code), never the credential; for metrics. */
  onFailure?: ((method: string, reason: string) => void) | undefined
}

/**
 * Builds the guard for the configured method, or undefined when `auth` is not configured.
 * Rejects for `oauth` when the authorization server cannot be discovered
 * (FST_MCP_AUTH_DISCOVERY_FAILED), and for a `jwt` publicKey that does not parse.
 */
export async function createAuthGuard (auth: AuthConfig | undefined, env: AuthGuardEnv): Promise<AuthGuard | undefined> {
  if (auth === undefined) return undefined
  // Aborts every fetch still running (key sets, discovery, introspection) when the guard closes.
  const controller = new AbortController()
  let strategy: Strategy
  switch (auth.type) {
    case 'jwt': strategy = createJwtStrategy(auth.options, controller.signal); break
    case 'apikey': strategy = createApiKeyStrategy(auth.options); break
    case 'oauth': strategy = await createOAuthStrategy(auth.options, env.endpoints, controller.signal); break
  }

  const onRequest: onRequestHookHandler = async function mcpAuth (request, reply) {
    try {
      request.mcpPrincipal = await strategy.authenticate(request)
    } catch (error) {
      /* c8 ignore next: strategies throw AuthFailures only; anything else is a bug for Fastify's error handler */
      if (!isAuthFailure(error)) throw error
      env.onFailure?.(auth.type, error.presented ? error.oauthError : 'missing_credential')
      return sendAuthFailure(reply, error, strategy.challenge(request, error))
    }
  }

  const params = strategy.redactParams
  return {
    onRequest,
    async registerRoutes (app, hooks) {
      await strategy.registerRoutes?.(app, hooks)
    },
    logSerializers: { req: requestLogSerializer(params) },
    validUntil: (principal) => principal.expiresAt === undefined ? undefined : principal.expiresAt + strategy.clockToleranceMs,
    scopeChallenge: (request, scopes) => scopeChallenge(scopes, strategy.resourceMetadata?.(request)),
    credential: credentialSource(auth),
    async close () {
      controller.abort()
      strategy.close()
    }
  }
}
