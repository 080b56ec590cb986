import { Type, type Static, type TUnsafe } from '@sinclair/typebox'
import type { RouteOptions } from 'fastify'

/** An HTTP header field name (RFC 9110 token): config.ts's HEADER_TOKEN_PATTERN, which cannot be imported (config.ts imports this file). */
const HEADER_NAME_PATTERN = "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$"

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

// Type.Function checks `typeof value === 'function'`; the static type is the precise one.
const Predicate = Type.Function([Type.Any()], Type.Boolean()) as unknown as TUnsafe<RoutePredicate>
const Selection = Type.Union([Type.Array(RouteMatcherSchema), Predicate])

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
  forwardHeaders: Type.Optional(Type.Array(Type.String({ pattern: HEADER_NAME_PATTERN })))
}, { additionalProperties: false })
export type RoutesOptions = Static<typeof RoutesOptionsSchema>
