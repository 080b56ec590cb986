import { PROTOCOL_VERSIONS } from '../../jsonrpc/versions.js'
import { CacheHints, type CacheSettings } from './caching.js'
import { META_SERVER_INFO, MODERN_VERSIONS, type ProtocolGeneration } from './meta.js'

/** Everything the modern leg needs from the options, computed once per server. */
export interface ModernSettings {
  /** The generations served (`protocols` option). */
  readonly generations: ReadonlySet<ProtocolGeneration>
  /** Modern revisions accepted in a request's `_meta`; empty when `modern` is not served. */
  readonly modernVersions: readonly string[]
  /** What discover and -32022 list: the modern revisions, then the legacy ones when `legacy` is served. */
  readonly supportedVersions: readonly string[]
  /** `_meta["io.modelcontextprotocol/serverInfo"]` of every modern result; one frozen object. */
  readonly serverInfo: Readonly<{ name: string, version: string }>
  /** The `_meta` of every modern result that brings none of its own: frozen, shared, serialized as is. */
  readonly resultMeta: Readonly<Record<string, unknown>>
  /** `ttlMs` / `cacheScope` of the cacheable methods' results. */
  readonly cache: CacheHints
}

export interface ModernOptions {
  name: string
  version: string
  /** Default both. */
  protocols?: readonly ProtocolGeneration[] | undefined
  cache?: CacheSettings | undefined
}

export function modernSettings (options: ModernOptions): ModernSettings {
  const generations = new Set<ProtocolGeneration>(options.protocols ?? ['modern', 'legacy'])
  const modernVersions = generations.has('modern') ? MODERN_VERSIONS : []
  const legacyVersions: readonly string[] = generations.has('legacy') ? PROTOCOL_VERSIONS : []
  const serverInfo = Object.freeze({ name: options.name, version: options.version })
  return Object.freeze({
    generations,
    modernVersions,
    supportedVersions: Object.freeze([...modernVersions, ...legacyVersions]),
    serverInfo,
    resultMeta: Object.freeze({ [META_SERVER_INFO]: serverInfo }),
    cache: new CacheHints(options.cache)
  })
}
