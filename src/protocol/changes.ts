import type { JsonRpcNotification } from '../jsonrpc/messages.js'
import type { ListKind } from './registry.js'

/**
 * A change the server announces. 2025 sessions hear it as an unsolicited
 * notification; 2026 clients hear it only on a `subscriptions/listen` stream
 * whose filter asked for it. One event type for both, so that
 * `notifyResourceUpdated()`, registry changes and `broadcast()` mean the same
 * thing on either generation.
 */
export type ChangeEvent =
  | { kind: 'list_changed', list: ListKind, params: Record<string, unknown> | undefined }
  | { kind: 'resource_updated', uri: string, params: Record<string, unknown> | undefined }

/**
 * Something beside the legacy sessions that takes change events: the 2026
 * listen streams. `ProtocolServer` fans every change out to its sessions and to each
 * listener; a listener answers how many receivers it reached.
 */
export interface ChangeListener {
  deliver: (event: ChangeEvent) => number
}

export const LIST_CHANGED_METHODS: Readonly<Record<ListKind, string>> = {
  tools: 'notifications/tools/list_changed',
  resources: 'notifications/resources/list_changed',
  prompts: 'notifications/prompts/list_changed'
}
export const RESOURCE_UPDATED_METHOD = 'notifications/resources/updated'

const LIST_OF_METHOD = new Map<string, ListKind>(
  (Object.entries(LIST_CHANGED_METHODS) as Array<[ListKind, string]>).map(([list, method]) => [method, list]))

/**
 * The change event a notification announces, if it is one of the four change
 * notifications a listen filter can ask for; undefined for anything else (logs,
 * custom methods), which 2026 clients have no stream to receive.
 */
export function changeEventOf (notification: Pick<JsonRpcNotification, 'method' | 'params'>): ChangeEvent | undefined {
  const list = LIST_OF_METHOD.get(notification.method)
  if (list !== undefined) return { kind: 'list_changed', list, params: notification.params }
  if (notification.method === RESOURCE_UPDATED_METHOD && typeof notification.params?.uri === 'string') {
    return { kind: 'resource_updated', uri: notification.params.uri, params: notification.params }
  }
  return undefined
}

/**
 * Where broadcasts and resource updates go when several instances serve one deployment (set by
 * the transports' scale-out wiring): to every instance, each of which delivers them to what it
 * holds through `ProtocolServer.deliverLocally`. Each method answers how many receivers this instance
 * reaches.
 */
export interface ChangeRelay {
  broadcast: (json: string) => number
  resourceUpdated: (uri: string, json: string) => number
  /**
   * A list of this instance's registry changed and now has `digest` (`Registry.digest`). Every
   * instance announces a (list, digest) once to what it holds, so that a change made on every
   * instance alike (the usual case: they run the same code) reaches each client once.
   */
  listChanged: (list: ListKind, digest: string, json: string) => void
  /**
   * Settles once the other instances can see what this one has sent them so far (the messages
   * above, and those for a session's stream held elsewhere); undefined when nothing is on its way.
   * A request is answered only then: a client that saw the answer and makes its next request on
   * another instance gets that request's broadcasts after this one's, on every stream.
   */
  written: () => Promise<void> | undefined
}
