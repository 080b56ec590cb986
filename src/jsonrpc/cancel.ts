import { isRequestId, type ClassifiedMessage, type JsonRpcId } from './messages.js'

export const CANCELLED_METHOD = 'notifications/cancelled'

/** Longest reason kept from a client's cancel: it becomes the handler's abort reason and may be logged. */
const MAX_REASON_LENGTH = 256

/** What a `notifications/cancelled` asks: which request to stop, and why. */
export interface Cancel {
  readonly requestId: JsonRpcId
  readonly reason: string
}

/**
 * The one reading of a client's cancel, for every transport and instance: undefined unless the
 * message is a `notifications/cancelled` naming a request id this server accepts (a number, or a
 * string of at most `MAX_REQUEST_ID_LENGTH` characters: a longer one names no request, and is
 * neither kept nor sent to other instances).
 */
export function cancelOf (classified: ClassifiedMessage): Cancel | undefined {
  if (classified.kind !== 'notification' || classified.message.method !== CANCELLED_METHOD) return undefined
  const params = classified.message.params
  const requestId = params?.requestId
  if (!isRequestId(requestId)) return undefined
  const reason = params?.reason
  return { requestId, reason: typeof reason === 'string' ? reason.slice(0, MAX_REASON_LENGTH) : 'cancelled by the client' }
}
