import { Type, type Static, type TUnsafe } from '@sinclair/typebox'
import { DEFAULT_LIMITS } from '../protocol/limits.js'
import { LISTEN_DEFAULTS } from '../protocol/listen/hub.js'
import type { CacheableMethod } from '../protocol/methods/table.js'
import { REQUEST_STATE_DEFAULTS } from '../protocol/modern/request-state.js'
import { TASK_DEFAULTS, type TaskStore } from '../protocol/tasks/types.js'
import type { EventStore } from '../scale/memory/event-store.js'
import { JWT_ALGORITHMS } from '../auth/algorithms.js'
import { RoutesOptionsSchema } from './routes.js'
import { ScaleOutOptionsSchema } from './scale.js'
import type { MeterProvider, TracerProvider } from '@opentelemetry/api'

// The schemas state shape, type, range and default. Checks that span several fields or that need a
// human explanation (weak secrets, algorithm confusion, https outside loopback...) live in
// rules.ts; resolve.ts runs both and reports every problem at once.

const MiB = 1024 * 1024

export { JWT_ALGORITHMS, type JwtAlgorithm } from '../auth/algorithms.js'

/** An HTTP header field name (RFC 9110 token). */
export const HEADER_TOKEN_PATTERN = "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$"
/** An absolute request path without query or fragment. */
export const ENDPOINT_PATTERN = '^/[^?#]*$'
/** `*` or a browser origin: `scheme://host[:port]`, no path, no trailing slash. */
export const ORIGIN_PATTERN = '^(\\*|[A-Za-z][A-Za-z0-9+.-]*://[^/?#@\\s]+)$'
/** A plain query parameter name. */
export const QUERY_PARAM_PATTERN = '^[A-Za-z0-9_.-]+$'

const strict = { additionalProperties: false } as const

export const CorsOptionsSchema = Type.Object({
  /**
   * Origins allowed to call the MCP endpoints from a browser, each `*` or `scheme://host[:port]`
   * (for example `https://app.example.com`). An empty list allows no cross-origin caller.
   * `*` is refused when `auth` is configured.
   */
  allowOrigins: Type.Array(Type.String({ pattern: ORIGIN_PATTERN }))
}, strict)
export type CorsOptions = Static<typeof CorsOptionsSchema>

export const JwtAuthOptionsSchema = Type.Object({
  /** Shared secret for HS256/HS384/HS512, at least 32 bytes. Read it from the environment. */
  secret: Type.Optional(Type.String({ minLength: 32 })),
  /** PEM public key (`-----BEGIN PUBLIC KEY-----`) or certificate for RS*, PS*, ES* or EdDSA. */
  publicKey: Type.Optional(Type.String({ minLength: 1 })),
  /** https URL of a JSON Web Key Set; keys are fetched by `kid` and rotate automatically. */
  jwksUri: Type.Optional(Type.String({ minLength: 1 })),
  /** Accepted signing algorithms, all HMAC (HS*) or all asymmetric; `none` is refused. */
  algorithms: Type.Array(Type.Union(JWT_ALGORITHMS.map((alg) => Type.Literal(alg))), { minItems: 1 }),
  /** Expected `iss` claim; checked when set. */
  issuer: Type.Optional(Type.String({ minLength: 1 })),
  /** Expected `aud` claim; checked when set. Set it so tokens for other services are refused. */
  audience: Type.Optional(Type.String({ minLength: 1 })),
  /** Clock skew allowed on `exp`, `nbf` and `iat`, in seconds. Default 5. */
  clockToleranceSeconds: Type.Optional(Type.Integer({ minimum: 0, default: 5 })),
  /** Largest bearer token accepted, in bytes; longer ones are refused before parsing. Default 8192. */
  maxTokenBytes: Type.Optional(Type.Integer({ minimum: 1, default: 8192 })),
  /**
   * Refuse tokens without an `exp` claim: a token that never expires stays valid forever once
   * leaked. Set false only for tokens your issuer cannot give an expiry. Default true.
   */
  requireExp: Type.Optional(Type.Boolean({ default: true }))
}, strict)
export type JwtAuthOptions = Static<typeof JwtAuthOptionsSchema>

export const ApiKeyAuthOptionsSchema = Type.Object({
  /** Accepted keys, each at least 16 characters; any one of them authenticates. Never logged. */
  keys: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
  /** Request header carrying the key. Default `X-API-Key`. */
  headerName: Type.Optional(Type.String({ pattern: HEADER_TOKEN_PATTERN, default: 'X-API-Key' })),
  /** Query parameter that may carry the key instead of the header; unset = header only. */
  queryParam: Type.Optional(Type.String({ minLength: 1, pattern: QUERY_PARAM_PATTERN }))
}, strict)
export type ApiKeyAuthOptions = Static<typeof ApiKeyAuthOptionsSchema>

export const OAuthAuthOptionsSchema = Type.Object({
  /** Issuer URL of the authorization server, used for discovery; https outside loopback. */
  issuerUrl: Type.String({ minLength: 1 }),
  /** OAuth client identifier of this server (used for token introspection). */
  clientId: Type.String({ minLength: 1 }),
  /** OAuth client secret of this server. Read it from the environment; never logged. */
  clientSecret: Type.String({ minLength: 1 }),
  /**
   * Expected audience (`aud`) of access tokens: the identifier your authorization server issues
   * tokens for this server under. This or `resource` is required (a token issued for another API
   * of the same issuer must be refused, RFC 8707); unset = `resource` is the audience.
   */
  audience: Type.Optional(Type.String({ minLength: 1 })),
  /** Scopes every access token must carry. Unset = no scope required. */
  scopes: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
  /**
   * Protected resource identifier (absolute URL, e.g. `https://mcp.example.com/mcp`) advertised in
   * RFC 9728 metadata, and the expected audience when `audience` is unset. Unset = derived from
   * each request's checked Host (never cached publicly).
   */
  resource: Type.Optional(Type.String({ minLength: 1 })),
  /**
   * Also accept JWT access tokens whose header `typ` is `JWT` (or absent), for providers that
   * do not issue RFC 9068 tokens (`typ: at+jwt`). Leaves an ID token of the same issuer and
   * audience usable as an access token, so keep it off when your provider issues `at+jwt`.
   * Default false.
   */
  allowGenericJwtTyp: Type.Optional(Type.Boolean({ default: false })),
  /** Timeout of the discovery request to the issuer, in milliseconds. Default 5000. */
  discoveryTimeoutMs: Type.Optional(Type.Integer({ minimum: 1, default: 5000 })),
  /** Introspection results kept in memory (entries); 0 disables the cache. Default 10000. */
  introspectionCacheSize: Type.Optional(Type.Integer({ minimum: 0, default: 10000 }))
}, strict)
export type OAuthAuthOptions = Static<typeof OAuthAuthOptionsSchema>

/** `{ type, options }`: the option set is chosen by `type`. */
export const AuthOptionsSchema = Type.Union([
  Type.Object({ type: Type.Literal('jwt'), options: JwtAuthOptionsSchema }, strict),
  Type.Object({ type: Type.Literal('apikey'), options: ApiKeyAuthOptionsSchema }, strict),
  Type.Object({ type: Type.Literal('oauth'), options: OAuthAuthOptionsSchema }, strict)
])
export type AuthOptions = Static<typeof AuthOptionsSchema>

// Options of the HTTP routes, shared by the standalone SSE transport and the Fastify plugin.
const httpRouteProperties = {
  /** Path of the SSE event stream (GET). Default `/sse`. */
  endpoint: Type.Optional(Type.String({ pattern: ENDPOINT_PATTERN, default: '/sse' })),
  /** Path where SSE clients POST their messages. Default `/messages`. */
  messageEndpoint: Type.Optional(Type.String({ pattern: ENDPOINT_PATTERN, default: '/messages' })),
  /** Path of the Streamable HTTP endpoint (GET, POST, DELETE); `false` disables it. Default `/mcp`. */
  streamableEndpoint: Type.Optional(Type.Union(
    [Type.String({ pattern: ENDPOINT_PATTERN }), Type.Literal(false)], { default: '/mcp' })),
  /** CORS for browser clients. Unset = no CORS headers (same-origin only). */
  cors: Type.Optional(CorsOptionsSchema),
  /** Authentication of every MCP route. Unset = no authentication. */
  auth: Type.Optional(AuthOptionsSchema),
  /**
   * Host header values accepted besides the loopback names (`localhost`, `[::1]`, `127.x.y.z`)
   * while bound to loopback; protects against DNS rebinding. Default: none.
   */
  allowedHosts: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
  /** Largest request body accepted, in bytes. Default 4 MiB (4194304). */
  bodyLimit: Type.Optional(Type.Integer({ minimum: 1024, default: 4 * MiB })),
  /** Concurrent sessions; further connections get 503 with Retry-After. Default 10000. */
  maxSessions: Type.Optional(Type.Integer({ minimum: 1, default: 10000 })),
  /**
   * Concurrent sessions of one client, so that no client can take every slot: with `auth` a
   * client is its identity (method, issuer, subject); without, its remote address (`request.ip`,
   * so set Fastify's `trustProxy` behind a proxy; IPv6 by /64 prefix). Further sessions get 429
   * with Retry-After. In `stateless` mode every request in flight is a session. Default 100.
   */
  maxSessionsPerClient: Type.Optional(Type.Integer({ minimum: 1, default: 100 })),
  /**
   * A new session is closed unless its client completes initialization within this many
   * milliseconds: legacy SSE, `initialize` and one more message; Streamable HTTP, a request with
   * the session id after `initialize`. Default 30000 (30 s).
   */
  sessionInitTimeoutMs: Type.Optional(Type.Integer({ minimum: 1, default: 30_000 })),
  /** Outbound bytes buffered per session before a slow client is cut off. Default 4 MiB. */
  maxQueuedBytes: Type.Optional(Type.Integer({ minimum: 1024, default: 4 * MiB })),
  /** Interval of keep-alive comments on open streams, in milliseconds. Default 15000. */
  keepAliveIntervalMs: Type.Optional(Type.Integer({ minimum: 1000, default: 15000 })),
  /** A session idle this long is closed, in milliseconds; 0 disables. Default 1800000 (30 min). */
  idleTimeoutMs: Type.Optional(Type.Integer({ minimum: 0, default: 1_800_000 })),
  /** Streamable HTTP without sessions: each POST stands alone. Default false. */
  stateless: Type.Optional(Type.Boolean({ default: false })),
  /** Events kept per session so a client can resume with Last-Event-ID; 0 disables. Default 100. */
  eventStoreSize: Type.Optional(Type.Integer({ minimum: 0, default: 100 })),
  /**
   * Bytes of events (UTF-8 JSON) kept per session for resumption, besides `eventStoreSize`; the
   * oldest are evicted first, and an event larger than this is not kept. Default 4 MiB (4194304).
   */
  eventStoreBytes: Type.Optional(Type.Integer({ minimum: 1024, default: 4 * MiB })),
  /**
   * Where the events of Streamable HTTP sessions are kept for resumption: an object implementing
   * `EventStore` (`append`, `replayAfter`, `deleteSession`; each may return a promise). Used as
   * given (never copied or frozen) and bounded by itself: `eventStoreSize` and `eventStoreBytes`
   * bound the built-in stores only. With `scaleOut` it replaces the Redis event log, so it must be
   * shared by every instance. Refused with `stateless`. Default: a bounded in-memory store (Redis
   * with `scaleOut`). Any value passes the schema and is checked by the rules (resolve.ts).
   */
  eventStore: Type.Optional(Type.Any() as unknown as TUnsafe<EventStore>),
  /**
   * Run several instances of this server behind a load balancer (no stickiness needed), sharing
   * sessions, event logs, tasks and messages in Redis. Unset = one process holds everything.
   */
  scaleOut: Type.Optional(ScaleOutOptionsSchema)
}

export const HttpOptionsSchema = Type.Object({
  /** TCP port of the listener; 0 picks a free port. Default 8080. */
  port: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535, default: 8080 })),
  /** Interface to bind. Default `127.0.0.1` (loopback only); use `0.0.0.0` to expose it. */
  host: Type.Optional(Type.String({ minLength: 1, default: '127.0.0.1' })),
  /**
   * Longest time to receive one whole request, headers and body, in milliseconds: a client that
   * sends slower (a body trickled byte by byte holds a connection and its memory) gets 408 and
   * is disconnected. Open event streams are not affected: their request is complete. 0 disables
   * (not advised). Default 30000.
   */
  requestReadTimeoutMs: Type.Optional(Type.Integer({ minimum: 0, default: 30_000 })),
  /**
   * Longest time to receive a request's headers, in milliseconds, at most `requestReadTimeoutMs`.
   * Default 10000.
   */
  headersTimeoutMs: Type.Optional(Type.Integer({ minimum: 1, default: 10_000 })),
  ...httpRouteProperties
  // default {} so an `sse` transport given without options still gets every default filled in.
}, { ...strict, default: {} })
export type HttpTransportOptions = Static<typeof HttpOptionsSchema>

export const StdioTransportSchema = Type.Object({ type: Type.Literal('stdio') }, strict)
export const SseTransportSchema = Type.Object({
  type: Type.Literal('sse'),
  /** HTTP listener and routes; every field has a default. */
  options: Type.Optional(HttpOptionsSchema)
}, strict)
/** `{ type: 'stdio' }` (no options) or `{ type: 'sse', options? }`. Default stdio. */
export const TransportSchema = Type.Union([StdioTransportSchema, SseTransportSchema], { default: { type: 'stdio' } })
export type TransportOptions = Static<typeof TransportSchema>

/** Bounds of MCP 2026-07-28 `subscriptions/listen` streams (on every transport). */
export const ListenOptionsSchema = Type.Object({
  /** Listen streams open at once on this server; a further `subscriptions/listen` is refused (-32603). Default 10000. */
  maxStreams: Type.Optional(Type.Integer({ minimum: 1, default: LISTEN_DEFAULTS.maxStreams })),
  /**
   * Listen streams open at once per authenticated principal (same auth method and subject); a
   * further one is refused (-32603). Unauthenticated callers share `maxStreams` only. Default 16.
   */
  maxStreamsPerPrincipal: Type.Optional(Type.Integer({ minimum: 1, default: LISTEN_DEFAULTS.maxStreamsPerPrincipal })),
  /**
   * URIs one listen request may list in `resourceSubscriptions`; more is refused (-32602). Each URI
   * is bounded by `maxUriBytes` like any URI a client sends. Default 100.
   */
  maxResourceSubscriptions: Type.Optional(Type.Integer({ minimum: 0, default: LISTEN_DEFAULTS.maxResourceSubscriptions }))
}, { ...strict, default: {} })
export type ListenOptions = Static<typeof ListenOptionsSchema>

/** `ttlMs` and `cacheScope` of one cacheable method's results (MCP 2026-07-28 caching). */
export const CacheHintSchema = Type.Object({
  /** How long a client may treat the result as fresh, in milliseconds (`ttlMs`). Default: `cache.ttlMs`. */
  ttlMs: Type.Optional(Type.Integer({ minimum: 0 })),
  /**
   * Who may share a cached result (`cacheScope`): `public` (any caller, shared caches included) or
   * `private` (only the same authorization context). Default: `cache.scope`.
   */
  scope: Type.Optional(Type.Union([Type.Literal('public'), Type.Literal('private')]))
}, strict)
export type CacheHint = Static<typeof CacheHintSchema>

export const CacheOptionsSchema = Type.Object({
  /** Freshness of every cacheable result, in milliseconds; 0 = immediately stale. Default 0. */
  ttlMs: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
  /**
   * Scope of every cacheable result: `private` (default; safe when results depend on the caller)
   * or `public` (identical for every caller; shared caches may serve it to anyone).
   */
  scope: Type.Optional(Type.Union([Type.Literal('public'), Type.Literal('private')], { default: 'private' })),
  /** Per-method overrides, keyed by method (`tools/list`, `resources/read`, ...). Default: none. */
  methods: Type.Optional(Type.Object({
    'server/discover': Type.Optional(CacheHintSchema),
    'tools/list': Type.Optional(CacheHintSchema),
    'prompts/list': Type.Optional(CacheHintSchema),
    'resources/list': Type.Optional(CacheHintSchema),
    'resources/templates/list': Type.Optional(CacheHintSchema),
    'resources/read': Type.Optional(CacheHintSchema)
  } satisfies Record<CacheableMethod, unknown>, strict))
}, { ...strict, default: {} })
export type CacheOptions = Static<typeof CacheOptionsSchema>

/** `modern` = MCP 2026-07-28 (stateless, per-request `_meta`); `legacy` = 2025-11-25 and older (`initialize`, sessions). */
export const ProtocolGenerationSchema = Type.Union([Type.Literal('modern'), Type.Literal('legacy')])
/** Longest TTL a timer can wait for (2^31-1 ms, about 24.8 days); Node fires longer ones at once. */
const MAX_TIMER_MS = 2_147_483_647

export const TasksOptionsSchema = Type.Object({
  /**
   * How long a task and its result are kept, from its creation, in milliseconds. A task still running
   * then is stopped (its signal aborts) and clients get "not found". Default 3600000 (1 hour).
   */
  ttlMs: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_TIMER_MS, default: TASK_DEFAULTS.ttlMs })),
  /** Polling interval suggested to clients (`pollIntervalMs`), in milliseconds. Default 1000. */
  pollIntervalMs: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_TIMER_MS, default: TASK_DEFAULTS.pollIntervalMs })),
  /** Tasks kept at once (running and finished, until their TTL), all clients together. Default 10000. */
  maxTasks: Type.Optional(Type.Integer({ minimum: 1, default: TASK_DEFAULTS.maxTasks })),
  /**
   * Tasks kept at once for one principal; further task calls get a clear error until some expire.
   * Without auth every client is the same principal. Default 100.
   */
  maxTasksPerPrincipal: Type.Optional(Type.Integer({ minimum: 1, default: TASK_DEFAULTS.maxTasksPerPrincipal }))
}, { ...strict, default: {} })
export type TasksOptions = Static<typeof TasksOptionsSchema>
export const RequestStateOptionsSchema = Type.Object({
  /**
   * HMAC-SHA256 key that signs the `requestState` of MCP 2026-07-28 multi-round-trip requests
   * (`ctx.elicit`, `ctx.sample`, `ctx.listRoots` on a stateless request), at least 32 characters.
   * Read it from the environment. Default: a random key per server instance, which is right for a
   * single process; replicas behind a load balancer need the same secret, or a retry that lands on
   * another replica is refused, and a restart invalidates the states in flight.
   */
  secret: Type.Optional(Type.String({ minLength: 32 })),
  /** How long a client has to answer and retry, in milliseconds. Default 600000 (10 min). */
  ttlMs: Type.Optional(Type.Integer({ minimum: 1000, maximum: 86_400_000, default: REQUEST_STATE_DEFAULTS.ttlMs })),
  /**
   * Largest `requestState` issued or accepted, in bytes. The answers of every earlier round travel
   * in it (clients send only the latest round's), so large sampling results need room. Default 65536.
   */
  maxBytes: Type.Optional(Type.Integer({ minimum: 1024, maximum: 4 * MiB, default: REQUEST_STATE_DEFAULTS.maxBytes }))
}, { ...strict, default: {} })
export type RequestStateOptions = Static<typeof RequestStateOptionsSchema>

/**
 * OpenTelemetry spans and metrics, following the MCP semantic conventions. Recorded through
 * `@opentelemetry/api`: nothing happens (and nothing is allocated) until the application
 * registers an SDK, or passes providers here.
 */
export const TelemetryOptionsSchema = Type.Object({
  /**
   * False: no spans and no metrics from this server, whatever SDK the application registered.
   * Default true (active as soon as an SDK is registered; free until then).
   */
  enabled: Type.Optional(Type.Boolean({ default: true })),
  /**
   * The tracer provider to record spans with, instead of the global one (`trace.getTracerProvider()`).
   * Used as given, never copied. Default: the global provider, looked up on each message so that
   * an SDK registered after the server was built is used.
   */
  tracerProvider: Type.Optional(Type.Unsafe<TracerProvider>({})),
  /** The meter provider to record metrics with, instead of the global one (`metrics.getMeterProvider()`). Used as given. */
  meterProvider: Type.Optional(Type.Unsafe<MeterProvider>({}))
}, { ...strict, default: {} })
export type TelemetryOptions = Static<typeof TelemetryOptionsSchema>

// Identity and protocol settings shared by MCPServer and the plugin.
const serverProperties = {
  /** Server name reported to clients in `initialize`. Default `fastify-mcp-server`. */
  name: Type.Optional(Type.String({ minLength: 1, default: 'fastify-mcp-server' })),
  /** Server version reported to clients in `initialize`. Default `0.0.0`. */
  version: Type.Optional(Type.String({ minLength: 1, default: '0.0.0' })),
  /** Usage hints sent to clients in `initialize`. Unset = none. */
  instructions: Type.Optional(Type.String()),
  /** Items per page of `tools/list`, `resources/list` and `prompts/list`. Default 100. */
  pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
  /** Timeout of server-to-client requests (sampling, elicitation...), in milliseconds. Default 60000. */
  requestTimeoutMs: Type.Optional(Type.Integer({ minimum: 1, default: 60_000 })),
  /**
   * Longest resource URI accepted from a client (`resources/read`, `resources/subscribe`,
   * `resources/unsubscribe`, a `completion/complete` template reference), in UTF-8 bytes; a longer
   * one gets -32602 before any matching. Default 8192.
   */
  maxUriBytes: Type.Optional(Type.Integer({ minimum: 1, default: DEFAULT_LIMITS.maxUriBytes })),
  /**
   * Protocol generations served, on every transport: `modern` (MCP 2026-07-28: stateless, each
   * request carries its version in `params._meta`) and `legacy` (2025-11-25, 2025-06-18,
   * 2025-03-26, 2024-11-05: `initialize` and sessions). A client gets the generation it opens
   * with. Default both: `['modern', 'legacy']`.
   */
  protocols: Type.Optional(Type.Array(ProtocolGenerationSchema, { minItems: 1, default: ['modern', 'legacy'] })),
  /** Caching hints (`ttlMs`, `cacheScope`) on 2026-07-28 results of discover, the lists and resources/read. */
  cache: Type.Optional(CacheOptionsSchema),
  /**
   * Distinct resource URIs one session may be subscribed to; a subscription past it gets -32600
   * (subscribing again to a URI held is fine). With `maxUriBytes` this bounds what subscriptions
   * hold per session. Default 100.
   */
  maxSubscriptions: Type.Optional(Type.Integer({ minimum: 1, default: DEFAULT_LIMITS.maxSubscriptions })),
  /**
   * Client requests one session may have being handled at once; the next one is answered at once
   * with -32600 and its handler does not run. Default 1000.
   */
  maxInflightRequests: Type.Optional(Type.Integer({ minimum: 1, default: DEFAULT_LIMITS.maxInflightRequests })),
  /** Tasks (the `io.modelcontextprotocol/tasks` extension of MCP 2026-07-28): TTL and bounds. Every field has a default. */
  tasks: Type.Optional(TasksOptionsSchema),
  /**
   * Where tasks are kept: an object implementing `TaskStore` (`create`, `get`, `update`, `close`).
   * Used as given (never copied or frozen); the server does not close it. Default: a bounded
   * in-memory store, closed with the server.
   */
  taskStore: Type.Optional(Type.Unsafe<TaskStore>({})),
  /** Signing of the `requestState` of 2026-07-28 multi-round-trip requests; every field has a default. */
  requestState: Type.Optional(RequestStateOptionsSchema),
  /** Bounds of `subscriptions/listen` streams (MCP 2026-07-28); every field has a default. */
  listen: Type.Optional(ListenOptionsSchema),
  /** OpenTelemetry traces and metrics (MCP semantic conventions); see the README, "Observability". */
  telemetry: Type.Optional(TelemetryOptionsSchema)
}

export const ServerOptionsSchema = Type.Object({
  ...serverProperties,
  /** Largest single stdio message line, in bytes. Default 4 MiB. */
  maxMessageBytes: Type.Optional(Type.Integer({ minimum: 1024, default: 4 * MiB })),
  /**
   * Level of the server's own log (stderr for stdio, Fastify's logger for SSE). Protocol traffic
   * never goes there. Default `warn`.
   */
  logLevel: Type.Optional(Type.Union([
    Type.Literal('fatal'), Type.Literal('error'), Type.Literal('warn'), Type.Literal('info'),
    Type.Literal('debug'), Type.Literal('trace'), Type.Literal('silent')
  ], { default: 'warn' })),
  /** Transport; default `{ type: 'stdio' }`. */
  transport: Type.Optional(TransportSchema)
}, strict)
/** Options of `new MCPServer(options?)`; every field is optional. */
export type ServerOptions = Static<typeof ServerOptionsSchema>

export const PluginOptionsSchema = Type.Object({
  ...serverProperties,
  ...httpRouteProperties,
  /** The app's own routes as MCP tools (docs/routes-as-tools.md). Unset = only routes with `config.mcp`. */
  routes: Type.Optional(RoutesOptionsSchema)
}, strict)
/** Options of `fastify.register(mcp, opts)`: the app owns the listener, so no `port`/`host`. */
export type PluginOptions = Static<typeof PluginOptionsSchema>
