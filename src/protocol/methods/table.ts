import { listen } from '../listen/method.js'
import { discover } from '../modern/discover.js'
import type { ProtocolGeneration } from '../modern/meta.js'
import { withInputRequests } from '../modern/mrtr.js'
import { cancelTask, getTask, updateTask } from '../tasks/methods.js'
import { complete } from './completion.js'
import { servedByExtension } from './extension.js'
import { initialize, ping, setLevel } from './lifecycle.js'
import { getPrompt, listPrompts } from './prompts.js'
import { listResources, listResourceTemplates, readResource, subscribe, unsubscribe } from './resources.js'
import { callTool, listTools } from './tools.js'
import type { MethodHandler } from './types.js'

/** Everything the server knows about one method, read by every layer that treats methods apart. */
export interface MethodRow {
  readonly handler: MethodHandler
  /**
   * The generations that have the method. Anything a generation lacks is -32601 (HTTP 404 on a
   * 2026-07-28 request), whether it never had it or the revision removed it.
   */
  readonly generations: readonly ProtocolGeneration[]
  /** A legacy client may call it before `initialize` has been answered. */
  readonly beforeInitialize?: true
  /**
   * The params field that the 2026-07-28 `Mcp-Name` header mirrors (SEP-2243), so that a balancer
   * can route on it; the header is checked against it.
   */
  readonly mcpNameFrom?: string
  /**
   * The definition the request acts on, named by `params.name` (a tool, a prompt) or `params.uri`
   * (a resource: a fixed URI or the template it matches). Its access rule and rate limit are checked
   * before the request runs (`authz/gate.ts`), and middleware sees the name as `op.name`.
   */
  readonly acts?: ActsOn
  /**
   * On 2026-07-28 the handler may answer `input_required`: it runs inside multi-round-trip handling
   * (`modern/mrtr.ts`). Legacy sessions call the bare handler (their asks are live requests).
   */
  readonly inputRequests?: true
  /** Its 2026-07-28 results carry `ttlMs` and `cacheScope` (`server/utilities/caching.mdx`; the `cache` option). */
  readonly cacheable?: true
  /**
   * Scale-out: it changes the session (log level, subscriptions), and other instances must see
   * the change, so the session record is reloaded before it runs and written before its answer.
   */
  readonly syncedAcrossInstances?: true
}

/** What kind of definition a request acts on: see {@link MethodRow.acts}. */
export type ActsOn = 'tool' | 'prompt' | 'resource'

const BOTH = ['modern', 'legacy'] as const

/**
 * One row per method: adding or changing a method is one edit here. The dispatcher, the
 * 2026-07-28 ladder, the `Mcp-Name` check, the caching hints (and the `cache` option's schema,
 * through {@link CacheableMethod}) and the scale-out sync all read it.
 *
 * What 2026-07-28 removed is legacy only: `initialize` (no handshake), `ping`, `logging/setLevel`
 * (the level travels in each request's `_meta`), `resources/subscribe` and `resources/unsubscribe`
 * (replaced by `subscriptions/listen`). Each handler returns a fresh result object: the 2026-07-28
 * result shaping completes it in place (`modern/shaping.ts`).
 */
export const METHOD_TABLE = {
  initialize: { handler: initialize, generations: ['legacy'], beforeInitialize: true },
  ping: { handler: ping, generations: ['legacy'], beforeInitialize: true },
  'logging/setLevel': { handler: setLevel, generations: ['legacy'], syncedAcrossInstances: true },
  'server/discover': { handler: discover, generations: ['modern'], cacheable: true },
  'tools/list': { handler: listTools, generations: BOTH, cacheable: true },
  'tools/call': { handler: callTool, generations: BOTH, mcpNameFrom: 'name', acts: 'tool', inputRequests: true },
  'resources/list': { handler: listResources, generations: BOTH, cacheable: true },
  'resources/templates/list': { handler: listResourceTemplates, generations: BOTH, cacheable: true },
  'resources/read': { handler: readResource, generations: BOTH, mcpNameFrom: 'uri', acts: 'resource', inputRequests: true, cacheable: true },
  'resources/subscribe': { handler: subscribe, generations: ['legacy'], acts: 'resource', syncedAcrossInstances: true },
  'resources/unsubscribe': { handler: unsubscribe, generations: ['legacy'], syncedAcrossInstances: true },
  'prompts/list': { handler: listPrompts, generations: BOTH, cacheable: true },
  'prompts/get': { handler: getPrompt, generations: BOTH, mcpNameFrom: 'name', acts: 'prompt', inputRequests: true },
  'completion/complete': { handler: complete, generations: BOTH },
  // The Tasks extension (io.modelcontextprotocol/tasks, SEP-2663); tasks/result and tasks/list are gone
  // from it. Task methods name their task, so a balancer can route to the instance running it.
  'tasks/get': { handler: getTask, generations: ['modern'], mcpNameFrom: 'taskId' },
  'tasks/update': { handler: updateTask, generations: ['modern'], mcpNameFrom: 'taskId' },
  'tasks/cancel': { handler: cancelTask, generations: ['modern'], mcpNameFrom: 'taskId' },
  'subscriptions/listen': { handler: listen, generations: ['modern'] },
  // The Skills extension (io.modelcontextprotocol/skills, SEP-2640), served by src/extensions/skills/
  // on both generations; directory/read only with `skills.directoryRead`. Their 2026-07-28 results
  // are cacheable like the lists and reads they stand beside.
  'skills/list': { handler: servedByExtension('skills/list'), generations: BOTH, cacheable: true },
  'skills/get': { handler: servedByExtension('skills/get'), generations: BOTH, acts: 'resource', cacheable: true },
  'resources/directory/read': { handler: servedByExtension('resources/directory/read'), generations: BOTH, cacheable: true }
} as const satisfies Readonly<Record<string, MethodRow>>

type Table = typeof METHOD_TABLE

/** The methods whose 2026-07-28 results carry caching hints: the keys `cache.methods` accepts. */
export type CacheableMethod = { [M in keyof Table]: Table[M] extends { readonly cacheable: true } ? M : never }[keyof Table]

const ROWS: ReadonlyArray<readonly [string, MethodRow]> = Object.entries(METHOD_TABLE)

/** The yes-or-no columns of the table. */
type MethodFlag = 'beforeInitialize' | 'inputRequests' | 'cacheable' | 'syncedAcrossInstances'

/** The names of the methods whose row sets `flag`. */
export function methodsWith (flag: MethodFlag): ReadonlySet<string> {
  return new Set(ROWS.filter(([, row]) => row[flag] === true).map(([name]) => name))
}

/**
 * The handler of every method `generation` has, by name. On 2026-07-28 the methods that may ask
 * for input are wrapped in multi-round-trip handling.
 */
function handlersOf (generation: ProtocolGeneration): ReadonlyMap<string, MethodHandler> {
  return new Map(ROWS.filter(([, row]) => row.generations.includes(generation)).map(([name, row]) => {
    const handler = generation === 'modern' && row.inputRequests === true ? withInputRequests(name, row.handler) : row.handler
    return [name, handler]
  }))
}

/** The methods a 2026-07-28 request may call. */
export const MODERN_METHODS = handlersOf('modern')
/** The methods of a session opened by `initialize`. */
export const LEGACY_METHODS = handlersOf('legacy')

/** What each method that acts on a definition acts on; see {@link MethodRow.acts}. */
export const ACTS: ReadonlyMap<string, ActsOn> = new Map(
  ROWS.flatMap(([name, row]) => row.acts === undefined ? [] : [[name, row.acts] as const])
)

/** Where `Mcp-Name` comes from, per method: the params field it mirrors. */
export const MCP_NAME_FROM: Readonly<Record<string, string>> = Object.freeze(Object.fromEntries(
  ROWS.flatMap(([name, row]) => row.mcpNameFrom === undefined ? [] : [[name, row.mcpNameFrom]])
))
