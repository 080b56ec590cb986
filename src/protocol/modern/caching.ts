/** The methods whose 2026-07-28 results carry caching hints (`server/utilities/caching.mdx`). */
export const CACHEABLE_METHODS = ['server/discover', 'tools/list', 'prompts/list', 'resources/list', 'resources/templates/list', 'resources/read'] as const
export type CacheableMethod = (typeof CACHEABLE_METHODS)[number]

export type CacheScope = 'public' | 'private'

/** The caching fields of one method's results. */
export interface CacheFields {
  ttlMs: number
  cacheScope: CacheScope
}

/** The `cache` option: defaults for every cacheable method, and per-method overrides. */
export interface CacheSettings {
  ttlMs?: number
  scope?: CacheScope
  methods?: Partial<Record<CacheableMethod, { ttlMs?: number, scope?: CacheScope } | undefined>>
}

/** Resolves the option once into the fields each cacheable method's results get. */
export function cacheTable (settings: CacheSettings | undefined): ReadonlyMap<string, CacheFields> {
  const table = new Map<string, CacheFields>()
  for (const method of CACHEABLE_METHODS) {
    const own = settings?.methods?.[method]
    // A private default is the safe one: a shared cache must never serve one caller's data to another.
    table.set(method, Object.freeze({ ttlMs: own?.ttlMs ?? settings?.ttlMs ?? 0, cacheScope: own?.scope ?? settings?.scope ?? 'private' }))
  }
  return table
}
