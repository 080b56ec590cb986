import { randomUUID } from 'node:crypto'
import type { JsonRpcId } from '../../jsonrpc/messages.js'
import { isRecord } from '../../util/is-record.js'

/** `_meta` key naming the listen stream a message belongs to; its value is the listen request's id. */
export const SUBSCRIPTION_ID_META = 'io.modelcontextprotocol/subscriptionId'

/** Params with the subscription id merged into their `_meta` (what was there is kept). */
export function stampSubscriptionId (params: Record<string, unknown> | undefined, id: JsonRpcId): Record<string, unknown> {
  const meta = params?._meta
  const base = isRecord(meta) ? meta : {}
  return { ...params, _meta: { ...base, [SUBSCRIPTION_ID_META]: id } }
}

/**
 * Stands for the subscription id while a notification is serialized once for
 * every stream: random per process, so that no params a handler or client
 * chose can contain it.
 */
const MARKER = `subscription-${randomUUID()}`
const MARKER_JSON = JSON.stringify(MARKER)

/** A notification as each listen stream sends it: the same JSON, its own subscription id. */
export type ListenFrame = (subscriptionId: JsonRpcId) => string

/**
 * Serializes a change notification once for all the listen streams it goes
 * to (a broadcast may reach thousands): each stream's message differs only in
 * its `_meta` subscription id, which is spliced into the one JSON text.
 */
export function listenFrame (method: string, params: Record<string, unknown> | undefined): ListenFrame {
  const json = JSON.stringify({ jsonrpc: '2.0', method, params: stampSubscriptionId(params, MARKER) })
  const at = json.indexOf(MARKER_JSON)
  /* c8 ignore next 3: the marker is random per process; only params holding it could repeat it */
  if (at !== json.lastIndexOf(MARKER_JSON)) {
    return (id) => JSON.stringify({ jsonrpc: '2.0', method, params: stampSubscriptionId(params, id) })
  }
  const before = json.slice(0, at)
  const after = json.slice(at + MARKER_JSON.length)
  return (id) => before + JSON.stringify(id) + after
}
