import type { Principal } from '../principal.js'

/** The owner of tasks created without authentication. No principal's key can equal it. */
export const ANONYMOUS_OWNER = 'anonymous'

/**
 * The key a task is bound to: the principal's auth method and subject, encoded
 * as a JSON array so that no two different (method, subject) pairs give the
 * same key (a `|`-joined string would let `a|b` + `c` collide with `a` + `b|c`).
 * Without auth every caller is the anonymous owner: the unguessable task id is
 * then the only secret, as SEP-2663 allows.
 */
export function ownerKey (principal: Principal | undefined): string {
  return principal === undefined ? ANONYMOUS_OWNER : JSON.stringify([principal.method, principal.subject])
}
