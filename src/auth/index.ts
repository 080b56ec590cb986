import type { FastifyInstance, onRequestHookHandler } from 'fastify'
import type { Principal } from '../protocol/principal.js'
import type { ResolvedAuthOptions } from '../schemas/resolve.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The principal verified by the MCP auth hook; undefined when auth is off. */
    mcpPrincipal?: Principal
  }
}

/** What the HTTP transports need from authentication. */
export interface AuthGuard {
  /** Route-level onRequest hook for every MCP route: verifies the credential, sets `request.mcpPrincipal`, or answers 401/403. */
  onRequest: onRequestHookHandler
  /** Extra routes auth needs (RFC 9728 protected-resource metadata), registered on the MCP child instance. */
  registerRoutes: (app: FastifyInstance) => Promise<void>
  /** Stops timers and caches. */
  close: () => Promise<void>
}

export interface AuthGuardEnv {
  /** Paths of the MCP endpoints as mounted (prefix included), for metadata and challenges. */
  endpoints: readonly string[]
}

/**
 * Builds the guard for the configured method, or undefined when `auth` is
 * not configured. (Stub: filled in by the authentication work.)
 */
export async function createAuthGuard (auth: ResolvedAuthOptions | undefined, _env: AuthGuardEnv): Promise<AuthGuard | undefined> {
  if (auth === undefined) return undefined
  throw new Error(`auth type ${auth.type} is not implemented yet`)
}
