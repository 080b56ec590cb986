import { principalKey, type Principal } from '../principal.js'

/** The owner of tasks created without authentication. No principal's key (a JSON array) can equal it. */
export const ANONYMOUS_OWNER = 'anonymous'

/**
 * The key a task is bound to: the principal's identity (method, kind, issuer,
 * subject; see `principalKey`), so a task follows its owner across tokens but
 * never reaches anyone else. Without auth every caller is the anonymous owner:
 * the unguessable task id is then the only secret, as SEP-2663 allows.
 */
export function ownerKey (principal: Principal | undefined): string {
  return principal === undefined ? ANONYMOUS_OWNER : principalKey(principal)
}
