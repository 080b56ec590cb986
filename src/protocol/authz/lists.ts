import type { MethodEnv } from '../methods/types.js'
import { paginate } from '../pagination.js'
import type { ListKind } from '../registry.js'
import type { Guarded } from './access.js'

/**
 * One page of a list as its caller may see it: the entries it may use (MCP: "the list MAY vary by
 * the authorization presented"), paged after filtering so that cursors walk the caller's own list.
 * On 2026-07-28 a list whose content depends on who asks is `cacheScope: 'private'` for every
 * caller (`server/utilities/caching`), whatever the `cache` option says; a list no rule touches
 * keeps its configured hints. Synchronous, as before, on a server without rules.
 */
export function listPage<T extends Guarded> (kind: ListKind, entries: Iterable<T>, params: Record<string, unknown>, env: MethodEnv,
  shape: (page: T[], nextCursor: string | undefined) => Record<string, unknown>): Record<string, unknown> | Promise<Record<string, unknown>> {
  const { access, server } = env
  if (!access.gated || !env.registry.guards(kind)) {
    const { page, nextCursor } = paginate(entries, params.cursor, server.pageSize)
    return shape(page, nextCursor)
  }
  const filtered = access.filter(entries)
  const finish = (visible: Iterable<T>): Record<string, unknown> => {
    const { page, nextCursor } = paginate(visible, params.cursor, server.pageSize)
    return privateOnModern(shape(page, nextCursor), env)
  }
  return filtered instanceof Promise ? filtered.then(finish) : finish(filtered)
}

/** Marks a 2026-07-28 result whose content depends on its caller as private to that caller. */
export function privateOnModern (result: Record<string, unknown>, env: Pick<MethodEnv, 'session'>): Record<string, unknown> {
  if (env.session.generation === 'modern') result.cacheScope = 'private'
  return result
}
