import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify'
import type { ResolvedAuthOptions } from '../../schemas/resolve.js'

// Why not @fastify/cors: it always adds an `OPTIONS *` route, which (with no
// prefix) answers preflights for the user's own routes with our policy, and
// clashes with the user's own @fastify/cors (duplicate route, and a
// `corsPreflightEnabled` request decorator that cannot be added twice), so an
// app that already uses @fastify/cors would fail to boot. The MCP policy is
// small and fixed, so it lives here as route-level hooks on our routes only.

const METHODS = 'GET, POST, DELETE, OPTIONS'

export interface CorsPolicy {
  /** Route-level onRequest hook: CORS headers on actual requests from an allowed origin. */
  onRequest: onRequestHookHandler
  /** Registers `OPTIONS <path>` preflight routes (no auth: browsers send preflights without credentials). */
  registerPreflight: (app: FastifyInstance, paths: readonly string[], routeOptions: PreflightRouteOptions) => void
}

export interface PreflightRouteOptions {
  /** Hooks run before the preflight answer (the host/origin guard). */
  onRequest: onRequestHookHandler[]
  logSerializers?: { req: (request: FastifyRequest) => Record<string, unknown> }
}

/**
 * `Mcp-Param-{Name}` headers (MCP 2026-07-28): a tool parameter marked `x-mcp-header` is mirrored
 * into one, so their names are the tools' choice, and a tool registered later adds its own.
 */
const PARAM_HEADER = /^mcp-param-[!#$%&'*+.^_`|~0-9a-z-]{1,64}$/
/** Param headers a preflight may allow at once: a tool's parameters, not an open list. */
const MAX_PARAM_HEADERS = 32

/** Request headers a browser client may send to the MCP endpoints (both generations). */
export function allowedHeadersFor (auth: ResolvedAuthOptions | undefined): string {
  const headers = ['Authorization', 'Content-Type', 'Mcp-Session-Id', 'Mcp-Protocol-Version', 'Mcp-Method', 'Mcp-Name', 'Last-Event-ID']
  if (auth?.type === 'apikey') headers.push(auth.options.headerName)
  return headers.join(', ')
}

/**
 * The preflight's `Access-Control-Allow-Headers`: the fixed list, plus the `Mcp-Param-*` headers
 * the browser asks for (`Access-Control-Request-Headers`), which no fixed list can name.
 */
function allowHeadersFor (fixed: string, requested: string | undefined): string {
  if (requested === undefined) return fixed
  const params = requested.toLowerCase().split(',').map((name) => name.trim()).filter((name) => PARAM_HEADER.test(name))
  return params.length === 0 ? fixed : `${fixed}, ${params.slice(0, MAX_PARAM_HEADERS).join(', ')}`
}

/**
 * CORS for the MCP routes. Origins are matched exactly against
 * `allowOrigins` (an empty list allows none; `*` allows any and is refused
 * with auth by the option rules). Credentials mode is not needed: tokens and
 * keys travel in headers, not cookies. The origin guard runs before these
 * hooks, so a disallowed origin never reaches them.
 */
export function createCorsPolicy (allowOrigins: readonly string[], auth: ResolvedAuthOptions | undefined): CorsPolicy {
  const anyOrigin = allowOrigins.includes('*')
  const origins = new Set(allowOrigins)
  const allowedHeaders = allowedHeadersFor(auth)
  // A browser client reads the session id, and with auth the challenge that points to the metadata.
  const exposedHeaders = auth === undefined ? 'Mcp-Session-Id' : 'Mcp-Session-Id, WWW-Authenticate'

  // Returns false when the request carries no allowed cross-origin Origin.
  const addOriginHeaders = (origin: string | undefined, reply: FastifyReply): boolean => {
    if (origin === undefined || (!anyOrigin && !origins.has(origin))) return false
    reply.header('Access-Control-Allow-Origin', anyOrigin ? '*' : origin)
    if (!anyOrigin) reply.header('Vary', 'Origin')
    return true
  }

  return {
    onRequest (request, reply, done) {
      if (addOriginHeaders(request.headers.origin, reply)) reply.header('Access-Control-Expose-Headers', exposedHeaders)
      done()
    },
    registerPreflight (app, paths, routeOptions) {
      for (const path of new Set(paths)) {
        app.options(path, { ...routeOptions, onRequest: [...routeOptions.onRequest] }, async (request, reply) => {
          if (addOriginHeaders(request.headers.origin, reply)) {
            reply.header('Access-Control-Allow-Methods', METHODS)
            reply.header('Access-Control-Allow-Headers', allowHeadersFor(allowedHeaders, request.headers['access-control-request-headers']))
            // The answer depends on the headers asked for: a cache must not serve it to another preflight.
            reply.header('Vary', anyOrigin ? 'Access-Control-Request-Headers' : 'Origin, Access-Control-Request-Headers')
            reply.header('Access-Control-Max-Age', '600')
          }
          // Some browsers wait for a body on a 204 without Content-Length.
          return await reply.code(204).header('Content-Length', '0').send()
        })
      }
    }
  }
}
