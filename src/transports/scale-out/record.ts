import { openReadySession, type Session, type SessionChannel } from '../../protocol/session.js'
import type { SessionRecord } from '../../scale/ports.js'

// A session crosses instances as its record: written here from a live `Session`, read back
// into one on the instance a request lands on. The two directions sit side by side so that a
// field added to one is seen missing from the other.

/** What a session record says about a live session, from its `Session`. */
export function recordOf (session: Session, kind: SessionRecord['kind']): SessionRecord {
  const principal = session.principal
  return {
    id: session.id,
    kind,
    ...(principal === undefined ? {} : { principal: { method: principal.method, kind: principal.kind, issuer: principal.issuer, subject: principal.subject } }),
    protocolVersion: session.protocolVersion ?? '',
    ...(session.clientInfo === undefined ? {} : { clientInfo: session.clientInfo }),
    clientCapabilities: session.clientCapabilities,
    ...(session.logLevel === undefined ? {} : { logLevel: session.logLevel }),
    subscriptions: [...session.subscriptions]
  }
}

/**
 * The `Session` a record describes, on `channel`: initialized already, bound to the record's
 * identity. The record holds no scopes or claims (never a credential): each request is checked
 * with its own.
 */
export function sessionFromRecord (record: SessionRecord, channel: SessionChannel): Session {
  const { principal } = record
  const session = openReadySession(record.id, channel, principal === undefined ? undefined : { ...principal, scopes: [], claims: {} }, record)
  for (const uri of record.subscriptions) session.subscriptions.add(uri)
  return session
}
