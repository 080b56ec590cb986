import { isRecord } from '../util/is-record.js'

/** `_meta` keys MCP reserves for itself: the 2026-07-28 envelope (server info, subscription ids...). */
const RESERVED_META = 'io.modelcontextprotocol/'

/**
 * A result without what the generation adds around the method's own fields: `resultType`, the
 * reserved `_meta` keys (a `_meta` left empty goes) and, on the cacheable methods (the lists,
 * `resources/read`, `server/discover`), the caching hints `ttlMs` and `cacheScope`. What a tool,
 * prompt or resource handler returned stays as it was.
 */
export function plain (result: Record<string, unknown>, cacheable = false): Record<string, unknown> {
  const { resultType: _type, _meta, ...rest } = result
  if (cacheable) {
    delete rest.ttlMs
    delete rest.cacheScope
  }
  if (!isRecord(_meta)) return rest
  const own = Object.fromEntries(Object.entries(_meta).filter(([key]) => !key.startsWith(RESERVED_META)))
  return Object.keys(own).length === 0 ? rest : { ...rest, _meta: own }
}
