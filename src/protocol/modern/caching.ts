export type CacheScope = 'public' | 'private'

/** The caching fields of one method's results. */
export interface CacheFields {
  ttlMs: number
  cacheScope: CacheScope
}

/**
 * The `cache` option: defaults for every cacheable method, and per-method overrides. Which methods
 * are cacheable is the method table's to say (`methods/table.ts`); the option's schema takes those
 * as the keys of `methods`.
 */
export interface CacheSettings {
  ttlMs?: number
  scope?: CacheScope
  methods?: Readonly<Record<string, { ttlMs?: number, scope?: CacheScope } | undefined>>
}

/** The `cache` option resolved once into the fields a cacheable method's results get. */
export class CacheHints {
  private readonly defaults: CacheFields
  private readonly overrides = new Map<string, CacheFields>()

  constructor (settings: CacheSettings | undefined) {
    // A private default is the safe one: a shared cache must never serve one caller's data to another.
    this.defaults = Object.freeze({ ttlMs: settings?.ttlMs ?? 0, cacheScope: settings?.scope ?? 'private' })
    for (const [method, own] of Object.entries(settings?.methods ?? {})) {
      if (own !== undefined) this.overrides.set(method, Object.freeze({ ttlMs: own.ttlMs ?? this.defaults.ttlMs, cacheScope: own.scope ?? this.defaults.cacheScope }))
    }
  }

  /** The fields of `method`'s results; asked only for a method the method table marks cacheable. */
  of (method: string): CacheFields {
    return this.overrides.get(method) ?? this.defaults
  }
}
