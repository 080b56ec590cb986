import { AUTH_PATTERN_WORDS, type AuthOptionsSchema } from './auth.js'
import { AUTHZ_PATTERN_WORDS, DEFAULT_AUTH_ALLOW } from './authz.js'
import { resolveOptions, type OptionsRoot } from './engine/resolve.js'
import type { Resolved } from './engine/types.js'
import { eventStoreAt, HTTP_PATTERN_WORDS, type HttpOptionsSchema } from './http.js'
import { FASTIFY_REGISTER_KEYS, PluginOptionsSchema, pluginRules } from './plugin.js'
import { ROUTE_PREDICATES } from './routes.js'
import { redisClientAt } from './scale-out.js'
import { ServerOptionsSchema, serverRules } from './server.js'
import { TASK_STORE } from './tasks.js'
import { TELEMETRY_PROVIDERS } from './telemetry.js'

// The two kinds of options, `new MCPServer(options)` and `fastify.register(mcp, options)`: one
// resolver (engine/resolve.ts) given each one's schema, rules and live objects. The options
// themselves, their defaults and rules are in one file per area beside this one.

export type { OptionsProblem } from './engine/problems.js'
export type { InvalidOptions } from './engine/resolve.js'

export type ResolvedServerOptions = Resolved<typeof ServerOptionsSchema>
export type ResolvedPluginOptions = Resolved<typeof PluginOptionsSchema>
export type ResolvedHttpTransportOptions = Resolved<typeof HttpOptionsSchema>
export type ResolvedAuthOptions = Resolved<typeof AuthOptionsSchema>

const PATTERN_WORDS = { ...HTTP_PATTERN_WORDS, ...AUTH_PATTERN_WORDS, ...AUTHZ_PATTERN_WORDS }
const SERVER_HTTP = ['transport', 'options']

const SERVER: OptionsRoot = {
  schema: ServerOptionsSchema,
  rules: serverRules,
  live: [TASK_STORE, redisClientAt(SERVER_HTTP), eventStoreAt(SERVER_HTTP), ...TELEMETRY_PROVIDERS, DEFAULT_AUTH_ALLOW],
  foreign: [],
  patterns: PATTERN_WORDS
}

const PLUGIN: OptionsRoot = {
  schema: PluginOptionsSchema,
  rules: pluginRules,
  live: [TASK_STORE, redisClientAt([]), eventStoreAt([]), ...TELEMETRY_PROVIDERS, ...ROUTE_PREDICATES, DEFAULT_AUTH_ALLOW],
  foreign: FASTIFY_REGISTER_KEYS,
  patterns: PATTERN_WORDS
}

/**
 * Validates `new MCPServer(options)` input and fills every default. `undefined` or `{}` = stdio.
 * Never mutates `input`; returns a deep-frozen object; throws one `InvalidOptionsError` listing
 * every problem.
 */
export function resolveServerOptions (input: unknown): ResolvedServerOptions {
  return resolveOptions(SERVER, input) as ResolvedServerOptions
}

/** Same as {@link resolveServerOptions} for `fastify.register(mcp, options)`. */
export function resolvePluginOptions (input: unknown): ResolvedPluginOptions {
  return resolveOptions(PLUGIN, input) as ResolvedPluginOptions
}

/**
 * The plugin's options as `MCPServer` mounts them on its own listener: the resolved server options
 * without what only the server has (transport, stdio limit, log level) and the listener's address.
 * Already validated as part of the server options: no second validation.
 */
export function pluginOptionsOf (server: ResolvedServerOptions): ResolvedPluginOptions | undefined {
  if (server.transport.type !== 'sse') return undefined
  const { transport: _transport, maxMessageBytes: _maxMessageBytes, logLevel: _logLevel, ...shared } = server
  const { port: _port, host: _host, requestReadTimeoutMs: _read, headersTimeoutMs: _headers, trustProxy: _trustProxy, ...routes } = server.transport.options
  return Object.freeze({ ...shared, ...routes })
}
