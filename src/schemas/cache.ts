import { Type, type Static } from '@sinclair/typebox'
import type { CacheableMethod } from '../protocol/methods/table.js'
import { Defaulted, strict } from './engine/schema.js'

/** `ttlMs` and `cacheScope` of one cacheable method's results (MCP 2026-07-28 caching). */
const CacheHintSchema = Type.Object({
  /** How long a client may treat the result as fresh, in milliseconds (`ttlMs`). Default: `cache.ttlMs`. */
  ttlMs: Type.Optional(Type.Integer({ minimum: 0 })),
  /**
   * Who may share a cached result (`cacheScope`): `public` (any caller, shared caches included) or
   * `private` (only the same authorization context). Default: `cache.scope`.
   */
  scope: Type.Optional(Type.Union([Type.Literal('public'), Type.Literal('private')]))
}, strict)
export type CacheHint = Static<typeof CacheHintSchema>

const CacheOptionsSchema = Type.Object({
  /** Freshness of every cacheable result, in milliseconds; 0 = immediately stale. Default 0. */
  ttlMs: Defaulted(Type.Integer({ minimum: 0, default: 0 })),
  /**
   * Scope of every cacheable result: `private` (default; safe when results depend on the caller)
   * or `public` (identical for every caller; shared caches may serve it to anyone).
   */
  scope: Defaulted(Type.Union([Type.Literal('public'), Type.Literal('private')], { default: 'private' })),
  /** Per-method overrides, keyed by method (`tools/list`, `resources/read`, ...). Default: none. */
  methods: Type.Optional(Type.Object({
    'server/discover': Type.Optional(CacheHintSchema),
    'tools/list': Type.Optional(CacheHintSchema),
    'prompts/list': Type.Optional(CacheHintSchema),
    'resources/list': Type.Optional(CacheHintSchema),
    'resources/templates/list': Type.Optional(CacheHintSchema),
    'resources/read': Type.Optional(CacheHintSchema),
    'skills/list': Type.Optional(CacheHintSchema),
    'skills/get': Type.Optional(CacheHintSchema),
    'resources/directory/read': Type.Optional(CacheHintSchema)
  } satisfies Record<CacheableMethod, unknown>, strict))
}, { ...strict, default: {} })
export type CacheOptions = Static<typeof CacheOptionsSchema>

export const cacheProperties = {
  /** Caching hints (`ttlMs`, `cacheScope`) on 2026-07-28 results of discover, the lists and resources/read. */
  cache: Defaulted(CacheOptionsSchema)
}
