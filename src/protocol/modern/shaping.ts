import { META_SERVER_INFO } from './meta.js'
import type { ModernSettings } from './settings.js'

/**
 * What every 2026-07-28 result carries beyond the method's own fields:
 * `resultType` (`complete` unless the handler chose another, such as
 * `input_required`), the server's identity in `_meta`, and on the cacheable
 * methods `ttlMs` and `cacheScope` (only on complete results: an interim
 * `input_required` answer is never cacheable). A handler's own valid caching
 * fields (a resource that knows its freshness) are kept.
 */
export function shapeModernResult (method: string, result: Record<string, unknown>, settings: ModernSettings): Record<string, unknown> {
  const resultType = typeof result.resultType === 'string' ? result.resultType : 'complete'
  const ownMeta = result._meta
  const meta = typeof ownMeta === 'object' && ownMeta !== null && !Array.isArray(ownMeta)
    ? { ...ownMeta, [META_SERVER_INFO]: settings.serverInfo }
    : { [META_SERVER_INFO]: settings.serverInfo }
  const shaped: Record<string, unknown> = { ...result, resultType, _meta: meta }
  if (resultType !== 'complete') return shaped
  const cache = settings.cache.get(method)
  if (cache === undefined) return shaped
  if (!(Number.isInteger(shaped.ttlMs) && (shaped.ttlMs as number) >= 0)) shaped.ttlMs = cache.ttlMs
  if (shaped.cacheScope !== 'public' && shaped.cacheScope !== 'private') shaped.cacheScope = cache.cacheScope
  return shaped
}
