import { methodsWith } from '../methods/table.js'
import { META_SERVER_INFO } from './meta.js'
import type { ModernSettings } from './settings.js'
import { shallowCopy } from '../../util/shallow-copy.js'

const CACHEABLE = methodsWith('cacheable')

/**
 * What every 2026-07-28 result carries beyond the method's own fields:
 * `resultType` (`complete` unless the handler chose another, such as
 * `input_required`), the server's identity in `_meta`, and on the cacheable
 * methods `ttlMs` and `cacheScope` (only on complete results: an interim
 * `input_required` answer is never cacheable). A handler's own valid caching
 * fields (a resource that knows its freshness) are kept.
 *
 * `result` is the object a method handler built for this answer (each builds
 * a fresh one), so it is completed in place: a copy per call showed in the
 * profile. A `_meta` it carries may be the user's own object and is copied.
 * Handlers that copy a user's result do it with `shallowCopy`, not a spread:
 * the properties added here would each cost a map copy (util/shallow-copy.ts).
 */
export function shapeModernResult (method: string, result: Record<string, unknown>, settings: ModernSettings): Record<string, unknown> {
  if (typeof result.resultType !== 'string') result.resultType = 'complete'
  const ownMeta = result._meta
  if (typeof ownMeta === 'object' && ownMeta !== null && !Array.isArray(ownMeta)) {
    const meta = shallowCopy(ownMeta)
    meta[META_SERVER_INFO] = settings.serverInfo
    result._meta = meta
  } else {
    result._meta = settings.resultMeta
  }
  if (result.resultType !== 'complete' || !CACHEABLE.has(method)) return result
  const cache = settings.cache.of(method)
  if (!(Number.isInteger(result.ttlMs) && (result.ttlMs as number) >= 0)) result.ttlMs = cache.ttlMs
  if (result.cacheScope !== 'public' && result.cacheScope !== 'private') result.cacheScope = cache.cacheScope
  return result
}
