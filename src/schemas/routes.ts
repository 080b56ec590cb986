import { Type, type Static } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import type { RouteOptions } from 'fastify'
import { mayForward } from '../protocol/http.js'
import { HEADER_TOKEN_PATTERN } from './auth.js'
import { LIVE, liveFunction } from './engine/live.js'
import { Live } from './engine/schema.js'

/**
 * One route matcher of `routes.include` / `routes.exclude`: a route matches when every field
 * given matches (an empty matcher matches every route).
 */
export const RouteMatcherSchema = Type.Object({
  /** The method, or one of several (any case): `'GET'`, `['PUT', 'PATCH']`. */
  method: Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })])),
  /**
   * A glob over the route's path as declared, prefixes included and parameters as written
   * (`/api/users/:id`): `*` matches within one segment, `**` across segments (`/api/**`).
   */
  url: Type.Optional(Type.String({ minLength: 1 })),
  /** A tag the route's `schema.tags` holds. */
  tag: Type.Optional(Type.String({ minLength: 1 })),
  /** The route's `schema.operationId`. */
  operationId: Type.Optional(Type.String({ minLength: 1 }))
}, { additionalProperties: false })
export type RouteMatcher = Static<typeof RouteMatcherSchema>

/** The route options Fastify's `onRoute` hook sees: what a {@link RoutePredicate} decides on. */
export type RouteCandidate = RouteOptions & { readonly prefix?: string, readonly routePath?: string }
/** Decides over one route's options, as Fastify's `onRoute` hook sees them. */
export type RoutePredicate = (route: RouteCandidate) => boolean

// A predicate is a live value (engine/live.ts): the union lets it through, and `routesRules` says
// what is wrong with anything that is neither a list of matchers nor a function.
const Selection = Type.Union([Type.Array(RouteMatcherSchema), Live<RoutePredicate>()])

/**
 * `routes`: which of the app's routes become MCP tools, and what they receive from the caller. A
 * route is a tool when (its `config.mcp` is truthy or it matches `include`), it matches no
 * `exclude`, and its `config.mcp` is not `false`. Never HEAD, OPTIONS or the MCP routes themselves.
 * See docs/routes-as-tools.md.
 */
export const RoutesOptionsSchema = Type.Object({
  /** Routes to expose without marking each: a list of matchers (any one matches) or a predicate. Default: none. */
  include: Type.Optional(Selection),
  /** Routes never to expose, even with `config.mcp: true`: a list of matchers or a predicate. Default: none. */
  exclude: Type.Optional(Selection),
  /**
   * Request headers passed on to the route besides the caller's credential (which always is), any
   * case: `['x-tenant-id', 'accept-language']`. Hop-by-hop headers, `host`, `content-length` and
   * `mcp-*` are never passed, listed or not. Default: none.
   */
  forwardHeaders: Type.Optional(Type.Array(Type.String({ pattern: HEADER_TOKEN_PATTERN })))
}, { additionalProperties: false })
export type RoutesOptions = Static<typeof RoutesOptionsSchema>

/** Predicates given as `include` / `exclude` are the caller's functions: passed through untouched. */
export const ROUTE_PREDICATES = [
  liveFunction(['routes', 'include'], 'a route predicate'),
  liveFunction(['routes', 'exclude'], 'a route predicate')
]

function isObject (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

const MATCHER_FIELDS = Object.keys(RouteMatcherSchema.properties)
const MATCHER_WORDS: Readonly<Record<string, string>> = {
  method: 'a method name or a non-empty list of them', url: 'a glob such as "/api/**"', tag: 'a tag', operationId: 'an operationId'
}

/**
 * What the schema alone would say badly: `include` / `exclude` are "a list or a function", and a
 * union's error names neither the matcher nor the field at fault; a `forwardHeaders` entry that is
 * never forwarded would be silently useless. Each problem replaces the schema's at its path.
 */
export function routesRules (options: unknown): Array<{ path: string, message: string }> {
  const routes = isObject(options) ? options.routes : undefined
  if (!isObject(routes)) return []
  const problems: Array<{ path: string, message: string }> = []
  for (const key of ['include', 'exclude'] as const) {
    const selection = routes[key]
    const path = `routes.${key}`
    if (selection === undefined || selection === LIVE || typeof selection === 'function') continue
    if (!Array.isArray(selection)) {
      problems.push({ path, message: `expected a list of matchers ({ ${MATCHER_FIELDS.join(', ')} }) or a predicate function, got ${selection === null ? 'null' : typeof selection}` })
      continue
    }
    const bad = selection.map((matcher, i) => matcherProblem(matcher, i)).filter((problem) => problem !== undefined)
    if (bad.length > 0) problems.push({ path, message: bad.join('; ') })
  }
  const headers = routes.forwardHeaders
  if (Array.isArray(headers)) {
    headers.forEach((name, i) => {
      if (typeof name === 'string' && !mayForward(name.toLowerCase())) {
        problems.push({ path: `routes.forwardHeaders[${i}]`, message: `${JSON.stringify(name)} is never forwarded (hop-by-hop, host, content-length and mcp-* headers are not the caller's to pass on)` })
      }
    })
  }
  return problems
}

function matcherProblem (matcher: unknown, index: number): string | undefined {
  if (!isObject(matcher)) return `item ${index} must be a matcher such as { url: '/api/**' }`
  const unknown = Object.keys(matcher).find((field) => !MATCHER_FIELDS.includes(field))
  if (unknown !== undefined) return `item ${index}: ${JSON.stringify(unknown)} is no matcher field; a matcher takes ${MATCHER_FIELDS.join(', ')}`
  if (Value.Check(RouteMatcherSchema, matcher)) return undefined
  const field = MATCHER_FIELDS.find((name) => matcher[name] !== undefined && !Value.Check(RouteMatcherSchema.properties[name as keyof typeof RouteMatcherSchema.properties], matcher[name]))
  /* c8 ignore next: a matcher with known fields only fails on one of them */
  if (field === undefined) return `item ${index} is no valid matcher`
  return `item ${index}: ${field} must be ${MATCHER_WORDS[field] as string}`
}
