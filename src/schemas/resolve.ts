import { InvalidOptionsError } from '../errors.js'
import { KindGuard, Type, type TObject, type TSchema } from '@sinclair/typebox'
import { Value, ValueErrorType, type ValueError } from '@sinclair/typebox/value'
import {
  ENDPOINT_PATTERN, HEADER_TOKEN_PATTERN, ORIGIN_PATTERN, PluginOptionsSchema, QUERY_PARAM_PATTERN, ServerOptionsSchema,
  type ApiKeyAuthOptions, type HttpTransportOptions, type JwtAuthOptions, type ListenOptions, type OAuthAuthOptions,
  type PluginOptions, type ServerOptions, type TasksOptions, type TelemetryOptions
} from './config.js'
import type { TaskStore } from '../protocol/tasks/types.js'
import { isRecord } from '../util/is-record.js'
import { describeValue, join, LIVE_EVENT_STORE, LIVE_REDIS_CLIENT, pluginRules, serverRules, type OptionsProblem } from './rules.js'
import { routesRules, withRoutePredicates, withoutRoutePredicates } from './routes.js'
import type { ResolvedScaleOutOptions } from './scale.js'

export type { OptionsProblem } from './rules.js'

/** The error thrown by the resolvers: one line per problem in `message`, the same list in `problems`. */
export type InvalidOptions = ReturnType<typeof InvalidOptionsError> & { problems: readonly OptionsProblem[] }

// Functions stay as they are (an ioredis client's methods).
type DeepReadonly<T> = T extends (...args: never[]) => unknown ? T : T extends ReadonlyArray<infer U>
  ? ReadonlyArray<DeepReadonly<U>>
  : T extends object ? { readonly [K in keyof T]: DeepReadonly<T[K]> } : T
/** T with the keys K present (their defaults filled in). */
type Filled<T, K extends keyof T> = Omit<T, K> & { [P in K]-?: Exclude<T[P], undefined> }

export type ResolvedAuthOptions =
  | { type: 'jwt', options: Filled<JwtAuthOptions, 'clockToleranceSeconds' | 'maxTokenBytes' | 'requireExp'> }
  | { type: 'apikey', options: Filled<ApiKeyAuthOptions, 'headerName'> }
  | { type: 'oauth', options: Filled<OAuthAuthOptions, 'discoveryTimeoutMs' | 'introspectionCacheSize' | 'allowGenericJwtTyp'> }
type RouteDefaults = 'endpoint' | 'messageEndpoint' | 'streamableEndpoint' | 'bodyLimit' | 'maxSessions' |
  'maxSessionsPerClient' | 'sessionInitTimeoutMs' |
  'maxQueuedBytes' | 'keepAliveIntervalMs' | 'idleTimeoutMs' | 'stateless' | 'eventStoreSize' | 'eventStoreBytes'
type IdentityDefaults = 'name' | 'version' | 'pageSize' | 'requestTimeoutMs' | 'maxUriBytes' | 'maxSubscriptions' | 'maxInflightRequests' | 'protocols' | 'cache' | 'tasks'
/** The `listen` block with every default filled in. */
type ListenFilled = { listen: Required<ListenOptions> }
type MutableHttp = Filled<Omit<HttpTransportOptions, 'auth' | 'scaleOut'>, RouteDefaults | 'port' | 'host' | 'requestReadTimeoutMs' | 'headersTimeoutMs'> &
  { auth?: ResolvedAuthOptions, scaleOut?: ResolvedScaleOutOptions }

export type ResolvedHttpTransportOptions = DeepReadonly<MutableHttp>
type ResolvedTasks = { tasks: Required<TasksOptions> }
/**
 * The task store and the telemetry providers are the caller's live objects: passed through as
 * they are, never cloned or frozen.
 */
type LiveStore = { taskStore?: TaskStore, telemetry: Readonly<{ enabled: boolean } & Omit<TelemetryOptions, 'enabled'>> }
export type ResolvedServerOptions = DeepReadonly<
  Filled<Omit<ServerOptions, 'transport' | 'tasks' | 'taskStore' | 'listen' | 'telemetry'>, Exclude<IdentityDefaults, 'tasks'> | 'maxMessageBytes' | 'logLevel'> &
  ResolvedTasks & ListenFilled & { transport: { type: 'stdio' } | { type: 'sse', options: MutableHttp } }> & LiveStore
export type ResolvedPluginOptions = DeepReadonly<
  Filled<Omit<PluginOptions, 'auth' | 'tasks' | 'taskStore' | 'listen' | 'scaleOut' | 'telemetry'>, Exclude<IdentityDefaults, 'tasks'> | RouteDefaults> &
  ResolvedTasks & ListenFilled & { auth?: ResolvedAuthOptions, scaleOut?: ResolvedScaleOutOptions }> & LiveStore

/** Fastify reads these from the register options itself; they are not ours to validate. */
const FASTIFY_REGISTER_KEYS = ['prefix', 'logLevel', 'logSerializers']

/**
 * Validates `new MCPServer(options)` input and fills every default. `undefined` or `{}` = stdio.
 * Never mutates `input`; returns a deep-frozen object; throws one {@link InvalidOptionsError}
 * listing every problem.
 */
export function resolveServerOptions (input: unknown): ResolvedServerOptions {
  const { value: withoutTasks, store } = withoutStore(input)
  const { value: withoutRedis, live: client } = withoutLive(withoutTasks, SERVER_REDIS, LIVE_REDIS_CLIENT)
  const { value: withoutEvents, live: events } = withoutLive(withoutRedis, SERVER_EVENTS, LIVE_EVENT_STORE)
  const { value, providers } = withoutProviders(withoutEvents)
  const rules = (v: unknown): OptionsProblem[] => [
    ...serverRules(v), ...storeRules(store), ...clientRules(client, SERVER_REDIS), ...eventStoreRules(events, SERVER_EVENTS), ...providerRules(providers)
  ]
  const resolved = resolve(ServerOptionsSchema, Value.Clone(value), rules)
  return withLive(withLiveAt(withLiveAt(resolved, SERVER_REDIS, client), SERVER_EVENTS, events), store, providers) as ResolvedServerOptions
}

/** Same as {@link resolveServerOptions} for `fastify.register(mcp, options)`. */
export function resolvePluginOptions (input: unknown): ResolvedPluginOptions {
  const { value: withoutTasks, store } = withoutStore(input)
  const { value: withoutRedis, live: client } = withoutLive(withoutTasks, PLUGIN_REDIS, LIVE_REDIS_CLIENT)
  const { value: withoutEvents, live: events } = withoutLive(withoutRedis, PLUGIN_EVENTS, LIVE_EVENT_STORE)
  const { value: withoutPredicates, predicates } = withoutRoutePredicates(withoutEvents)
  const { value: original, providers } = withoutProviders(withoutPredicates)
  const value: unknown = Value.Clone(original)
  if (isRecord(value)) for (const key of FASTIFY_REGISTER_KEYS) delete value[key]
  const rules = (v: unknown): OptionsProblem[] => [
    ...pluginRules(v), ...routesRules(v), ...storeRules(store), ...clientRules(client, PLUGIN_REDIS), ...eventStoreRules(events, PLUGIN_EVENTS), ...providerRules(providers)
  ]
  const resolved = resolve(PluginOptionsSchema, value, rules)
  return withRoutePredicates(withLive(withLiveAt(withLiveAt(resolved, PLUGIN_REDIS, client), PLUGIN_EVENTS, events), store, providers), predicates) as ResolvedPluginOptions
}

/** Where an ioredis client given as `scaleOut.redis` sits in each kind of options. */
const SERVER_REDIS = ['transport', 'options', 'scaleOut', 'redis']
const PLUGIN_REDIS = ['scaleOut', 'redis']
/** Where an `eventStore` sits. */
const SERVER_EVENTS = ['transport', 'options', 'eventStore']
const PLUGIN_EVENTS = ['eventStore']

/**
 * An ioredis client (`scaleOut.redis`) and an `eventStore` are live objects, like `taskStore`:
 * each is swapped for a marker before the options are cloned and checked (copying the objects on
 * its path, never mutating the caller's), checked for its methods, and put back as the very same
 * object. Anything that is not an object stays in place for the schema and the rules to refuse.
 */
function withoutLive (input: unknown, path: string[], marker: string): { value: unknown, live: unknown } {
  const parents: Array<Record<string, unknown>> = []
  let node = input
  for (const key of path.slice(0, -1)) {
    if (!isRecord(node)) return { value: input, live: undefined }
    parents.push(node)
    node = node[key]
  }
  const leaf = path[path.length - 1] as string
  if (!isRecord(node) || (typeof node[leaf] !== 'object' && typeof node[leaf] !== 'function') || node[leaf] === null) {
    return { value: input, live: undefined }
  }
  const live = node[leaf]
  let copy: Record<string, unknown> = { ...node, [leaf]: marker }
  for (let i = parents.length - 1; i >= 0; i--) copy = { ...parents[i], [path[i] as string]: copy }
  return { value: copy, live }
}

function clientRules (client: unknown, path: string[]): OptionsProblem[] {
  if (client === undefined || typeof (client as { duplicate?: unknown }).duplicate === 'function') return []
  return [{ path: path.join('.'), message: 'expected a redis:// or rediss:// URL, or an ioredis client (an object with duplicate()), got an object without duplicate()' }]
}

const EVENT_STORE_METHODS = ['append', 'replayAfter', 'deleteSession'] as const

function eventStoreRules (store: unknown, path: string[]): OptionsProblem[] {
  if (store === undefined) return []
  const missing = EVENT_STORE_METHODS.filter((method) => typeof (store as Record<string, unknown>)[method] !== 'function')
  if (missing.length === 0) return []
  return [{ path: path.join('.'), message: `expected an EventStore, an object with the methods ${EVENT_STORE_METHODS.join(', ')}; missing: ${missing.join(', ')}` }]
}

function withLiveAt (resolved: unknown, path: string[], live: unknown): unknown {
  if (live === undefined) return resolved
  const put = (node: unknown, depth: number): unknown => {
    const key = path[depth] as string
    const record = node as Record<string, unknown>
    return Object.freeze({ ...record, [key]: depth === path.length - 1 ? live : put(record[key], depth + 1) })
  }
  return put(resolved, 0)
}

const STORE_METHODS = ['create', 'get', 'update', 'close'] as const

/**
 * `taskStore` is a live object (methods, connections): it is taken out before
 * the options are cloned and frozen, checked for the TaskStore methods, and
 * put back as the very same object.
 */
function withoutStore (input: unknown): { value: unknown, store: unknown } {
  if (input === undefined) return { value: {}, store: undefined }
  if (!isRecord(input) || !('taskStore' in input)) return { value: input, store: undefined }
  const { taskStore, ...value } = input
  return { value, store: taskStore }
}

function storeRules (store: unknown): OptionsProblem[] {
  if (store === undefined) return []
  const missing = isRecord(store) || typeof store === 'function'
    ? STORE_METHODS.filter((method) => typeof (store as Record<string, unknown>)[method] !== 'function')
    : [...STORE_METHODS]
  if (missing.length === 0) return []
  return [{ path: 'taskStore', message: `expected a TaskStore, an object with the methods ${STORE_METHODS.join(', ')}; missing: ${missing.join(', ')}` }]
}

type Providers = Partial<Record<'tracerProvider' | 'meterProvider', unknown>>
const PROVIDER_METHODS = { tracerProvider: 'getTracer', meterProvider: 'getMeter' } as const

/** `telemetry.tracerProvider` / `meterProvider`, taken out like `taskStore` (an SDK object must not be cloned or frozen). */
function withoutProviders (input: unknown): { value: unknown, providers: Providers } {
  if (!isRecord(input) || !isRecord(input.telemetry)) return { value: input, providers: {} }
  const { tracerProvider, meterProvider, ...telemetry } = input.telemetry
  const providers: Providers = {}
  if (tracerProvider !== undefined) providers.tracerProvider = tracerProvider
  if (meterProvider !== undefined) providers.meterProvider = meterProvider
  return { value: { ...input, telemetry }, providers }
}

function providerRules (providers: Providers): OptionsProblem[] {
  const problems: OptionsProblem[] = []
  for (const key of ['tracerProvider', 'meterProvider'] as const) {
    if (!(key in providers)) continue
    const provider = providers[key]
    const method = PROVIDER_METHODS[key]
    if ((isRecord(provider) || typeof provider === 'function') && typeof (provider as Record<string, unknown>)[method] === 'function') continue
    problems.push({ path: `telemetry.${key}`, message: `expected an OpenTelemetry ${key === 'tracerProvider' ? 'TracerProvider' : 'MeterProvider'}, an object with a ${method}() method, got ${describeValue(provider, `telemetry.${key}`)}` })
  }
  return problems
}

function withLive (resolved: unknown, store: unknown, providers: Providers): unknown {
  const result = resolved as Record<string, unknown>
  const telemetry = Object.freeze({ ...(result.telemetry as object), ...providers })
  return Object.freeze({ ...result, telemetry, ...(store === undefined ? {} : { taskStore: store }) })
}

/**
 * The plugin's options as `MCPServer` mounts them on its own listener: the resolved server options
 * without what only the server has (transport, stdio limit, log level) and the listener's address.
 * Already validated as part of the server options: no second validation.
 */
export function pluginOptionsOf (server: ResolvedServerOptions): ResolvedPluginOptions | undefined {
  if (server.transport.type !== 'sse') return undefined
  const { transport: _transport, maxMessageBytes: _maxMessageBytes, logLevel: _logLevel, ...shared } = server
  const { port: _port, host: _host, requestReadTimeoutMs: _read, headersTimeoutMs: _headers, ...routes } = server.transport.options
  return Object.freeze({ ...shared, ...routes })
}

function resolve (schema: TObject, value: unknown, rules: (value: unknown) => OptionsProblem[]): unknown {
  const problems: OptionsProblem[] = []
  const chosen = chooseVariants(schema, value, '', problems)
  const defaulted: unknown = Value.Default(chosen, value)
  const seen = new Set(problems.map((p) => p.path))
  for (const error of Value.Errors(chosen, defaulted)) {
    const problem = fromSchemaError(error, defaulted)
    if (seen.has(problem.path)) continue // one line per path: the first error is the most basic
    seen.add(problem.path)
    problems.push(problem)
  }
  // Sorted by path so the problems of one option block read together; the sort is stable.
  const all = merge(problems, rules(defaulted)).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  if (all.length > 0) {
    const lines = all.map((p) => `  ${p.path === '' ? '(options)' : p.path}: ${p.message}`).join('\n')
    const error = Object.assign(new InvalidOptionsError(lines), { problems: all }) satisfies InvalidOptions
    throw error
  }
  return deepFreeze(defaulted)
}

// A raw TypeBox union error only says "expected union value". For `{ type, options }` unions we
// read `type` first and swap the union for the matching variant (Type.Unknown when there is
// none, after reporting it), so defaults and errors then come from that variant alone.
function chooseVariants (schema: TSchema, value: unknown, path: string, problems: OptionsProblem[]): TSchema {
  if (isTaggedUnion(schema)) {
    const actual = value === undefined ? (schema.default as unknown) : value
    if (actual === undefined) return schema
    const types = schema.anyOf.map((variant) => JSON.stringify(variant.properties.type.const)).join(', ')
    if (!isRecord(actual)) {
      problems.push({ path, message: `expected an object with a "type" of ${types}, got ${describeValue(actual, path)}` })
      return Type.Unknown()
    }
    const variant = schema.anyOf.find((v) => v.properties.type.const === actual.type)
    if (variant === undefined) {
      const got = actual.type === undefined ? 'it is missing' : `got ${describeValue(actual.type, join(path, 'type'))}`
      problems.push({ path: join(path, 'type'), message: `expected one of ${types}, ${got}` })
      return Type.Unknown()
    }
    const chosen = chooseVariants(variant, actual, path, problems)
    return 'default' in schema ? { ...chosen, default: schema.default } : chosen
  }
  if (KindGuard.IsObject(schema) && isRecord(value)) {
    const properties: Record<string, TSchema> = {}
    for (const [key, property] of Object.entries(schema.properties)) {
      properties[key] = chooseVariants(property, value[key], join(path, key), problems)
    }
    return { ...schema, properties }
  }
  return schema
}

type TaggedVariant = TObject<{ type: { const: unknown } & TSchema }>
function isTaggedUnion (schema: TSchema): schema is TSchema & { anyOf: TaggedVariant[] } {
  return KindGuard.IsUnion(schema) && schema.anyOf.every((v) => KindGuard.IsObject(v) && KindGuard.IsLiteral(v.properties.type))
}

function fromSchemaError (error: ValueError, root: unknown): OptionsProblem {
  const path = toDotted(error.path, root)
  if (error.type === ValueErrorType.ObjectAdditionalProperties) {
    const key = error.path.slice(error.path.lastIndexOf('/') + 1).replaceAll('~1', '/').replaceAll('~0', '~')
    const guess = closest(key, Object.keys((error.schema as TObject).properties))
    return { path, message: `unknown option${guess === undefined ? '' : ` (did you mean "${guess}"?)`}` }
  }
  if (error.type === ValueErrorType.ObjectRequiredProperty) {
    return { path, message: `required: expected ${describe(error.schema)}` }
  }
  return { path, message: `expected ${describe(error.schema)}, got ${describeValue(error.value, path)}` }
}

/** `/transport/options/keys/0` -> `transport.options.keys[0]`, using the value to tell indexes. */
function toDotted (pointer: string, root: unknown): string {
  let path = ''
  let node = root
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~')
    if (Array.isArray(node)) {
      path = join(path, Number(key))
      node = node[Number(key)]
    } else {
      path = join(path, key)
      node = isRecord(node) ? node[key] : undefined
    }
  }
  return path
}

const PATTERN_WORDS: Record<string, string> = {
  [ENDPOINT_PATTERN]: 'a path starting with "/"',
  [ORIGIN_PATTERN]: '"*" or an origin (scheme://host[:port])',
  [HEADER_TOKEN_PATTERN]: 'an HTTP header name',
  [QUERY_PARAM_PATTERN]: 'a plain parameter name'
}

/** What a schema expects, in words: "an integer from 0 to 65535". */
function describe (schema: TSchema): string {
  if (KindGuard.IsLiteral(schema)) return JSON.stringify(schema.const)
  if (KindGuard.IsUnion(schema)) {
    return schema.anyOf.every((v) => KindGuard.IsLiteral(v))
      ? `one of ${schema.anyOf.map(describe).join(', ')}`
      : schema.anyOf.map(describe).join(' or ')
  }
  if (KindGuard.IsString(schema)) {
    if (schema.pattern !== undefined) return PATTERN_WORDS[schema.pattern] ?? `a string matching /${schema.pattern}/`
    const min = schema.minLength ?? 0
    if (min <= 1) return min === 1 ? 'a non-empty string' : 'a string'
    return `a string of at least ${min} characters`
  }
  if (KindGuard.IsInteger(schema) || KindGuard.IsNumber(schema)) {
    const kind = KindGuard.IsInteger(schema) ? 'an integer' : 'a number'
    const { minimum: min, maximum: max } = schema
    if (min !== undefined && max !== undefined) return `${kind} from ${min} to ${max}`
    if (min !== undefined) return `${kind} of at least ${min}`
    return max === undefined ? kind : `${kind} of at most ${max}`
  }
  if (KindGuard.IsBoolean(schema)) return 'true or false'
  if (KindGuard.IsArray(schema)) {
    const min = schema.minItems ?? 0
    return `a ${min > 0 ? 'non-empty ' : ''}list of ${plural(describe(schema.items))}`
  }
  if (KindGuard.IsObject(schema)) return 'an object'
  /* c8 ignore next 2: defensive, every kind used by config.ts is described above */
  return 'a valid value'
}

function plural (description: string): string {
  if (description.startsWith('one of ')) return `values, each ${description}`
  return description.replace(/^an? (non-empty )?string/, (_, ne: string | undefined) => `${ne ?? ''}strings`)
}

/** Rule problems replace the schema problem at their path, in its place; the others are appended. */
function merge (schemaProblems: OptionsProblem[], ruleProblems: OptionsProblem[]): OptionsProblem[] {
  const rulePaths = new Set(ruleProblems.map((r) => r.path))
  const placed = new Set<string>()
  const out: OptionsProblem[] = []
  for (const problem of schemaProblems) {
    if (!rulePaths.has(problem.path)) {
      out.push(problem)
    } else if (!placed.has(problem.path)) {
      out.push(...ruleProblems.filter((r) => r.path === problem.path))
      placed.add(problem.path)
    }
  }
  return [...out, ...ruleProblems.filter((r) => !placed.has(r.path))]
}

/** The known option closest to an unknown one, if it is close enough to be a typo. */
function closest (key: string, known: string[]): string | undefined {
  const limit = Math.min(2, Math.floor(key.length / 2))
  let best: string | undefined
  let bestDistance = Infinity
  for (const candidate of known) {
    const d = distance(key.toLowerCase(), candidate.toLowerCase())
    if (d <= limit && d < bestDistance) [best, bestDistance] = [candidate, d]
  }
  return best
}

/** Edit distance counting an adjacent swap as one edit ("prot" -> "port"). */
function distance (a: string, b: string): number {
  const width = b.length + 1
  const d: number[] = []
  const at = (i: number, j: number): number => d[i * width + j] ?? 0
  for (let i = 0; i <= a.length; i++) {
    for (let j = 0; j <= b.length; j++) {
      let v = i + j
      if (i > 0 && j > 0) {
        v = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + (a[i - 1] === b[j - 1] ? 0 : 1))
        if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, at(i - 2, j - 2) + 1)
      }
      d[i * width + j] = v
    }
  }
  return at(a.length, b.length)
}

function deepFreeze<T> (value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child)
    Object.freeze(value)
  }
  return value
}
