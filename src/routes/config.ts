import type { AccessRule, RateLimitRule } from '../protocol/authz/rules.js'
import type { ToolAnnotations } from '../protocol/definitions.js'
import { isRecord } from '../util/is-record.js'

/** `config: { mcp: { ... } }` in a route's options: how the route looks as a tool. */
export interface RouteToolConfig {
  /** The tool name (1-128 of `A-Z a-z 0-9 _ . -`). Default: `schema.operationId`, else `<method>_<path>`. */
  name?: string
  /** A title for people. Default: `schema.summary`. */
  title?: string
  /** What the tool does, for the model. Default: `schema.description`, else `schema.summary`, else `METHOD /path`. */
  description?: string
  /** Merged over the annotations derived from the method (GET read-only, PUT idempotent, DELETE destructive). */
  annotations?: ToolAnnotations
  /** `true`: not a tool, as with `config.mcp: false`, for a route matched by `routes.include`. */
  hidden?: boolean
  /** Who may call the tool, as a tool definition's `auth` (docs/authorization.md). Default: the server's `defaultAuth`. */
  auth?: AccessRule
  /** A budget of calls per client for the tool, as a tool definition's `rateLimit`. Default: none. */
  rateLimit?: RateLimitRule
}

/** What a route's `config.mcp` says: `mark` is its verdict (undefined: leave it to `routes`). */
export interface ReadConfig {
  readonly mark: boolean | undefined
  readonly config: Readonly<RouteToolConfig>
}

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/
// `auth` and `rateLimit` are checked where every definition's are: the registry, at registration.
const KEYS: ReadonlySet<string> = new Set(['name', 'title', 'description', 'annotations', 'hidden', 'auth', 'rateLimit'])
const ANNOTATION_TYPES: Readonly<Record<string, 'string' | 'boolean'>> = {
  title: 'string', readOnlyHint: 'boolean', destructiveHint: 'boolean', idempotentHint: 'boolean', openWorldHint: 'boolean'
}

/** Reads `config.mcp`; a string saying what is wrong when it is invalid (the caller names the route). */
export function readConfig (value: unknown): ReadConfig | string {
  if (value === undefined) return { mark: undefined, config: {} }
  if (typeof value === 'boolean') return { mark: value, config: {} }
  if (!isRecord(value) || Array.isArray(value)) return `config.mcp must be true, false or an object; got ${describe(value)}`
  for (const key of Object.keys(value)) {
    if (!KEYS.has(key)) return `config.mcp has no option ${JSON.stringify(key)}; it takes ${[...KEYS].join(', ')}`
  }
  const { name, title, description, annotations, hidden } = value
  if (name !== undefined && (typeof name !== 'string' || !TOOL_NAME.test(name))) {
    return `config.mcp.name must be 1-128 characters of A-Z, a-z, 0-9, "_", "-" or "."; got ${describe(name)}`
  }
  for (const [key, field] of [['title', title], ['description', description]] as const) {
    if (field !== undefined && typeof field !== 'string') return `config.mcp.${key} must be a string; got ${describe(field)}`
  }
  if (hidden !== undefined && typeof hidden !== 'boolean') return `config.mcp.hidden must be true or false; got ${describe(hidden)}`
  if (annotations !== undefined) {
    if (!isRecord(annotations) || Array.isArray(annotations)) return `config.mcp.annotations must be an object; got ${describe(annotations)}`
    for (const [key, hint] of Object.entries(annotations)) {
      const type = ANNOTATION_TYPES[key]
      if (type === undefined) return `config.mcp.annotations has no ${JSON.stringify(key)}; it takes ${Object.keys(ANNOTATION_TYPES).join(', ')}`
      const actual: string = typeof hint
      if (actual !== type) return `config.mcp.annotations.${key} must be a ${type}; got ${describe(hint)}`
    }
  }
  return { mark: hidden !== true, config: value as RouteToolConfig }
}

function describe (value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)
  if (Array.isArray(value)) return 'an array'
  return value === null ? 'null' : typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`
}
