import type { ServerResponse } from 'node:http'
import type { FastifyError, FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify'
import { createAuthGuard, type AuthGuard } from '../../auth/index.js'
import type { CallerTransport } from '../../protocol/caller.js'
import type { ProtocolServer } from '../../protocol/protocol-server.js'
import type { ResolvedAuthOptions, ResolvedPluginOptions } from '../../schemas/resolve.js'
import { memoryRateCounter, redisRateCounter } from '../rate-counters.js'
import { HttpCaller, recordBodyLength, type Forwarded } from './caller.js'
import { createCorsPolicy } from './cors.js'
import { HttpDoor } from './door.js'
import { endAtDeadline } from './expiry.js'
import { createOriginGuard } from './guards.js'
import { requestFactsHook } from './request-facts.js'
import { transportErrorHandler } from './replies.js'
import { SessionLimits } from './session-limits.js'
import { StreamSet } from './sse-stream.js'

/** Route options every MCP route carries. */
export interface McpRouteOptions {
  /** In order: host/origin guard, CORS, auth, the request facts of `ctx.http`. */
  onRequest: onRequestHookHandler[]
  /** Request logs with credential query parameters redacted (when auth is on). */
  logSerializers?: { req: (request: FastifyRequest) => Record<string, unknown> }
}

/** What every HTTP transport shares on the MCP child instance. */
export interface HttpPlumbing {
  /** Fresh route options for one MCP route (GET, POST, DELETE; never OPTIONS). */
  readonly routeOptions: () => McpRouteOptions
  /** The auth guard, when auth is configured; its own routes are mounted outside the prefix. */
  readonly auth: AuthGuard | undefined
  /** Open event streams: one keep-alive timer for all, destroyed on close. */
  readonly streams: StreamSet
  /** Session slots, overall and per client, and the deadline of sessions not initialized yet. */
  readonly limits: SessionLimits
  /** `path` as clients must address it (the child's prefix included). */
  readonly url: (path: string) => string
  /**
   * Calls `end` when the credential `request` was verified with expires, unless `res` closed
   * first: a stream opened with a token must not outlive it (the client comes back with a valid one).
   */
  readonly endWithCredential: (request: FastifyRequest, res: ServerResponse, end: () => void) => void
  /** Budgets and access rules of each JSON-RPC request before it is dispatched: 429 and 403 answered there. */
  readonly door: HttpDoor
  /**
   * The caller of the message `request` carries, for the dispatcher: the one place each transport
   * says who is calling. `forwarded`: a message another instance received (scale-out), carried here
   * by `request`, with its own principal and size.
   */
  readonly callerOf: (request: FastifyRequest, transport: CallerTransport, forwarded?: Forwarded) => HttpCaller
}

/**
 * Prepares the encapsulated MCP child for the HTTP transports: JSON-only
 * bodies, the error contract, DNS-rebinding protection, CORS, auth, session
 * limits and the keep-alive timer. `endpoints` are the child-relative paths of
 * every MCP route (they get CORS preflight routes and go into auth metadata).
 * Nothing here touches the parent app; auth's own routes are left to the caller.
 */
export async function setupHttp (app: FastifyInstance, core: ProtocolServer, options: ResolvedPluginOptions, endpoints: readonly string[]): Promise<HttpPlumbing> {
  // Fastify keeps a trailing slash of the prefix (`/api/`) but joins routes without doubling it.
  const base = app.prefix.endsWith('/') ? app.prefix.slice(0, -1) : app.prefix
  const url = (path: string): string => `${base}${path}`

  // Only JSON bodies, parsed by Fastify's own hardened parser (prototype
  // poisoning refused): anything else is a 415 here even if the parent app
  // registered parsers for forms or text.
  app.removeAllContentTypeParsers()
  // The body's length is kept for the bounds of bytes in flight (see HttpCaller).
  const parseJson = app.getDefaultJsonParser('error', 'ignore')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    // parseAs 'string': always a string here.
    recordBodyLength(request, body)
    parseJson(request, body as string, done)
  })
  app.setErrorHandler((error: FastifyError, request, reply) => {
    // The one bound Fastify enforces for us: counted with the others.
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') core.telemetry.limitRefusal('bodyLimit')
    return transportErrorHandler(error, request, reply)
  })
  // No setNotFoundHandler: without a prefix it would take over the user's 404s.

  const guard = createOriginGuard({ allowOrigins: options.cors?.allowOrigins, allowedHosts: options.allowedHosts })
  // The resolved options are deep-readonly; the auth seam takes the same shape, minus the readonly marks.
  const authOptions = options.auth as ResolvedAuthOptions | undefined
  const cors = options.cors === undefined ? undefined : createCorsPolicy(options.cors.allowOrigins, authOptions)
  const auth = await createAuthGuard(authOptions, {
    endpoints: endpoints.map(url),
    onFailure: (method, reason) => { core.telemetry.authFailure(method, reason) }
  })

  const hooks: onRequestHookHandler[] = [guard]
  if (cors !== undefined) hooks.push(cors.onRequest)
  if (auth !== undefined) hooks.push(auth.onRequest)
  // Last: what ctx.http tells handlers is what the guard above accepted.
  hooks.push(requestFactsHook(auth?.credential))
  const routeOptions = (only = hooks): McpRouteOptions => auth === undefined
    ? { onRequest: [...only] }
    : { onRequest: [...only], logSerializers: auth.logSerializers }
  // Preflights pass the guard but never auth: browsers send them without credentials.
  cors?.registerPreflight(app, endpoints, routeOptions([guard]))

  const streams = new StreamSet(options.keepAliveIntervalMs)
  core.telemetry.countStreams('sse', () => streams.size)
  const limits = new SessionLimits(core, options)
  // Budgets in this process, or in Redis when every instance must draw on the same ones.
  const counter = options.scaleOut === undefined ? memoryRateCounter() : redisRateCounter(options.scaleOut)
  const door = new HttpDoor(core, auth, counter, options.rateLimit)
  app.addHook('onClose', async () => {
    limits.close()
    streams.closeAll()
    await auth?.close()
    await counter.close?.()
  })
  const endWithCredential = (request: FastifyRequest, res: ServerResponse, end: () => void): void => {
    const principal = request.mcpPrincipal
    if (auth !== undefined && principal !== undefined) endAtDeadline(res, auth.validUntil(principal), end)
  }
  const callerOf = (request: FastifyRequest, transport: CallerTransport, forwarded?: Forwarded): HttpCaller => new HttpCaller(request, transport, auth, forwarded)
  return { routeOptions: () => routeOptions(), auth, streams, limits, url, endWithCredential, door, callerOf }
}

/**
 * Mounts routes that read no request body (DELETE, the 405 answers) in a scope whose only body
 * parser leaves the body unread. A body they never look at must not fail them: the Python SDK ends
 * its sessions with a bodyless `DELETE` that still says `Content-Type: application/json`, which the
 * JSON parser refused as an empty body (400 -32700), so the session lived on. Node discards
 * whatever body is left once the answer is sent. POST routes keep the strict JSON parser.
 */
export function registerBodyless (app: FastifyInstance, routes: (scope: FastifyInstance) => void): void {
  void app.register(async (scope: FastifyInstance) => {
    scope.removeAllContentTypeParsers()
    scope.addContentTypeParser('*', (_request, _payload, done) => { done(null, undefined) })
    routes(scope)
  })
}
