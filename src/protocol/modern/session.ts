import type { Principal } from '../principal.js'
import { openReadySession, type Session, type SessionChannel } from '../session.js'
import type { ModernMeta } from './meta.js'

/**
 * The throwaway session that carries one 2026-07-28 request through the
 * dispatcher: already `ready`, marked `modern`, its version, capabilities,
 * client info and log level read from the request's `_meta`, its principal
 * the one verified for this very request. It has no id a client ever sees
 * (`ctx.session` is empty: there is no session), is never registered with the
 * core's sessions (broadcasts do not reach it) and is closed once answered.
 */
export function openModernSession (channel: SessionChannel, principal: Principal | undefined, meta: ModernMeta): Session {
  const session = openReadySession('', channel, principal, meta)
  session.generation = 'modern'
  return session
}
