import { Type, type Static } from '@sinclair/typebox'
import { DEFAULT_LIMITS } from '../protocol/limits.js'
import { isRecord } from '../util/is-record.js'
import { join, type Add, type OptionsProblem } from './engine/problems.js'
import { Defaulted, MiB, strict } from './engine/schema.js'
import { authzProperties } from './authz.js'
import { cacheProperties } from './cache.js'
import { HttpOptionsSchema, httpRules, listenerRules } from './http.js'
import { listenProperties } from './listen.js'
import { requestStateProperties } from './request-state.js'
import { scaleOutSecretRule } from './scale-out.js'
import { taskProperties } from './tasks.js'
import { telemetryProperties } from './telemetry.js'
import { skillsProperties } from './skills.js'

// `new MCPServer(options)`: identity and protocol settings (shared with the plugin), the stdio
// limit, the log level and the transport.

/** `modern` = MCP 2026-07-28 (stateless, per-request `_meta`); `legacy` = 2025-11-25 and older (`initialize`, sessions). */
const ProtocolGenerationSchema = Type.Union([Type.Literal('modern'), Type.Literal('legacy')])

// Identity and protocol settings shared by MCPServer and the plugin.
export const serverProperties = {
  /** Server name reported to clients in `initialize`. Default `fastify-mcp-server`. */
  name: Defaulted(Type.String({ minLength: 1, default: 'fastify-mcp-server' })),
  /** Server version reported to clients in `initialize`. Default `0.0.0`. */
  version: Defaulted(Type.String({ minLength: 1, default: '0.0.0' })),
  /** Usage hints sent to clients in `initialize`. Unset = none. */
  instructions: Type.Optional(Type.String()),
  /** Items per page of `tools/list`, `resources/list` and `prompts/list`. Default 100. */
  pageSize: Defaulted(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
  /** Timeout of server-to-client requests (sampling, elicitation...), in milliseconds. Default 60000. */
  requestTimeoutMs: Defaulted(Type.Integer({ minimum: 1, default: 60_000 })),
  /**
   * Longest resource URI accepted from a client (`resources/read`, `resources/subscribe`,
   * `resources/unsubscribe`, a `completion/complete` template reference), in UTF-8 bytes; a longer
   * one gets -32602 before any matching. Default 8192.
   */
  maxUriBytes: Defaulted(Type.Integer({ minimum: 1, default: DEFAULT_LIMITS.maxUriBytes })),
  /**
   * Protocol generations served, on every transport: `modern` (MCP 2026-07-28: stateless, each
   * request carries its version in `params._meta`) and `legacy` (2025-11-25, 2025-06-18,
   * 2025-03-26, 2024-11-05: `initialize` and sessions). A client gets the generation it opens
   * with. Default both: `['modern', 'legacy']`.
   */
  protocols: Defaulted(Type.Array(ProtocolGenerationSchema, { minItems: 1, default: ['modern', 'legacy'] })),
  ...cacheProperties,
  /**
   * Distinct resource URIs one session may be subscribed to; a subscription past it gets -32600
   * (subscribing again to a URI held is fine). With `maxUriBytes` this bounds what subscriptions
   * hold per session. Default 100.
   */
  maxSubscriptions: Defaulted(Type.Integer({ minimum: 1, default: DEFAULT_LIMITS.maxSubscriptions })),
  /**
   * Bytes of the resource URIs (UTF-8) the sessions of one client may be subscribed to, all its
   * sessions together; a client is its identity with `auth`, its address without (as
   * `maxSessionsPerClient` counts), the process on stdio. A subscription past it gets -32600 with
   * `data.limit` naming this option (so does a URI longer than it, whatever `maxUriBytes` admits);
   * unsubscribing, or closing a session, gives its bytes back. Default 4194304 (4 MiB).
   */
  maxSubscriptionBytesPerClient: Defaulted(Type.Integer({ minimum: 1024, default: DEFAULT_LIMITS.maxSubscriptionBytesPerClient })),
  /**
   * Bytes of the resource URIs subscribed to, all sessions of all clients together; past it, as
   * past `maxSubscriptionBytesPerClient`. At least `maxSubscriptionBytesPerClient`. Default
   * 67108864 (64 MiB).
   */
  maxSubscriptionBytes: Defaulted(Type.Integer({ minimum: 1024, default: DEFAULT_LIMITS.maxSubscriptionBytes })),
  /**
   * Client requests one session may have being handled at once; the next one is answered at once
   * with -32600 and its handler does not run. Default 1000.
   */
  maxInflightRequests: Defaulted(Type.Integer({ minimum: 1, default: DEFAULT_LIMITS.maxInflightRequests })),
  /**
   * Bytes of the requests one client may have being handled at once (the size of each message as
   * received; a 2026-07-28 listen stream counts for as long as it is open). A client is its
   * identity with `auth`, its address without (as `maxSessionsPerClient` counts), the process on
   * stdio. The next request is answered at once with -32600 (2026-07-28 over HTTP: 429) and its
   * handler does not run. At least `bodyLimit` (`maxMessageBytes` on stdio). Default 33554432 (32 MiB).
   */
  maxInflightBytesPerClient: Defaulted(Type.Integer({ minimum: 1024, default: DEFAULT_LIMITS.maxInflightBytesPerClient })),
  /**
   * Bytes of the requests being handled at once, all clients together; past it, as past
   * `maxInflightBytesPerClient`. Default 536870912 (512 MiB).
   */
  maxInflightBytes: Defaulted(Type.Integer({ minimum: 1024, default: DEFAULT_LIMITS.maxInflightBytes })),
  /**
   * Bytes of JSON an `initialize` may declare about its client (`capabilities` and `clientInfo`
   * together), which its session keeps for its whole life (with `scaleOut`, in its Redis record);
   * a larger one gets -32602 and no session. Default 16384 (16 KiB).
   */
  maxInitializeBytes: Defaulted(Type.Integer({ minimum: 256, default: DEFAULT_LIMITS.maxInitializeBytes })),
  ...taskProperties,
  ...requestStateProperties,
  ...listenProperties,
  ...telemetryProperties,
  ...skillsProperties,
  ...authzProperties
}

const StdioTransportSchema = Type.Object({ type: Type.Literal('stdio') }, strict)
const SseTransportSchema = Type.Object({
  type: Type.Literal('sse'),
  /** HTTP listener and routes; every field has a default. */
  options: Defaulted(HttpOptionsSchema)
}, strict)
/** `{ type: 'stdio' }` (no options) or `{ type: 'sse', options? }`. Default stdio. */
const TransportSchema = Type.Union([StdioTransportSchema, SseTransportSchema], { default: { type: 'stdio' } })
export type TransportOptions = Static<typeof TransportSchema>

export const ServerOptionsSchema = Type.Object({
  ...serverProperties,
  /** Largest single stdio message line, in bytes. Default 4 MiB. */
  maxMessageBytes: Defaulted(Type.Integer({ minimum: 1024, default: 4 * MiB })),
  /**
   * Level of the server's own log (stderr for stdio, Fastify's logger for SSE). Protocol traffic
   * never goes there. Default `warn`.
   */
  logLevel: Defaulted(Type.Union([
    Type.Literal('fatal'), Type.Literal('error'), Type.Literal('warn'), Type.Literal('info'),
    Type.Literal('debug'), Type.Literal('trace'), Type.Literal('silent')
  ], { default: 'warn' })),
  /** Transport; default `{ type: 'stdio' }`. */
  transport: Defaulted(TransportSchema)
}, strict)
/** Options of `new MCPServer(options?)`; every field is optional. */
export type ServerOptions = Static<typeof ServerOptionsSchema>

/** Rules of `new MCPServer(options)`. */
export function serverRules (options: unknown): OptionsProblem[] {
  const problems: OptionsProblem[] = []
  const add: Add = (path, message) => { problems.push({ path, message }) }
  if (isRecord(options)) protocolRules(options, add)
  const transport = isRecord(options) ? options.transport : undefined
  if (!isRecord(transport)) return problems
  if (isRecord(options)) {
    const http = transport.type === 'sse' && isRecord(transport.options)
    inflightRules(options, http ? (transport.options as Record<string, unknown>).bodyLimit : options.maxMessageBytes, http ? 'transport.options.bodyLimit' : 'maxMessageBytes', add)
  }
  if (transport.type === 'stdio' && 'options' in transport) {
    add('transport.options', 'stdio takes no options: remove "options", or use { type: \'sse\', options } for HTTP')
  }
  if (transport.type === 'sse' && isRecord(transport.options)) {
    httpRules(transport.options, 'transport.options', add)
    listenerRules(transport.options, 'transport.options', add)
    if (isRecord(options)) scaleOutSecretRule(options, transport.options, add)
  }
  return problems
}

/**
 * `protocols` naming a generation twice is a typo worth naming (the schema would only say
 * "unique"); a task bound of all clients below one client's share would be the real bound.
 */
export function protocolRules (options: Record<string, unknown>, add: Add): void {
  const tasks = options.tasks
  if (isRecord(tasks) && typeof tasks.maxBytes === 'number' && typeof tasks.maxBytesPerPrincipal === 'number' && tasks.maxBytes < tasks.maxBytesPerPrincipal) {
    add('tasks.maxBytes', `${tasks.maxBytes} is smaller than tasks.maxBytesPerPrincipal (${tasks.maxBytesPerPrincipal}), which it includes: raise it, or lower tasks.maxBytesPerPrincipal`)
  }
  subscriptionRules(options, add)
  const protocols = options.protocols
  if (!Array.isArray(protocols)) return
  const seen = new Set<unknown>()
  protocols.forEach((generation, i) => {
    if (seen.has(generation)) add(join('protocols', i), `${JSON.stringify(generation)} is listed twice; list each generation once ('modern', 'legacy')`)
    seen.add(generation)
  })
}

/**
 * An overall bound of subscribed bytes below one client's share would be the real one. A share
 * below `maxUriBytes` is fine: that bound is also for reads, whose URIs may be longer than any a
 * client should keep subscribed to.
 */
function subscriptionRules (options: Record<string, unknown>, add: Add): void {
  const { maxSubscriptionBytesPerClient: perClient, maxSubscriptionBytes: overall } = options
  if (typeof perClient === 'number' && typeof overall === 'number' && overall < perClient) {
    add('maxSubscriptionBytes', `${overall} is smaller than maxSubscriptionBytesPerClient (${perClient}), which it includes: raise it, or lower maxSubscriptionBytesPerClient`)
  }
}

/**
 * The bounds of bytes in flight against the largest message (`bodyLimit` over HTTP,
 * `maxMessageBytes` on stdio): a client's share smaller than one message would refuse a message
 * the transport admits, every time; an overall bound below one client's share would be the real one.
 */
export function inflightRules (options: Record<string, unknown>, largest: unknown, largestName: string, add: Add): void {
  const { maxInflightBytesPerClient: perClient, maxInflightBytes: overall } = options
  if (typeof perClient === 'number' && typeof largest === 'number' && perClient < largest) {
    add('maxInflightBytesPerClient', `${perClient} is smaller than ${largestName} (${largest}): a message the transport accepts would always be refused; raise it to ${largest} or more`)
  }
  if (typeof perClient === 'number' && typeof overall === 'number' && overall < perClient) {
    add('maxInflightBytes', `${overall} is smaller than maxInflightBytesPerClient (${perClient}), which it includes: raise it, or lower maxInflightBytesPerClient`)
  }
}
