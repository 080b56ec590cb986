import { ScaleUnavailableError } from '../errors.js'
import { ErrorCode } from '../jsonrpc/errors.js'
import { failure, type JsonRpcId, type JsonRpcMessage } from '../jsonrpc/messages.js'

// A request that failed because the shared state of a scale-out deployment (Redis) did not answer
// in time may succeed if its client sends it again: a task call or `tasks/get` while Redis stalls,
// a change that must reach the other instances. Its JSON-RPC answer is an ordinary -32603; a
// transport that can say more (HTTP: 503 with Retry-After, the error contract of every other
// request that needs Redis) finds it marked with kRetryLater.

/** On an error answer: the server could not answer now; the same request may succeed later. */
export const kRetryLater = Symbol('retryLater')

/** Whether `error` is a failure of the shared state that a retry may not meet (Redis away or stalled, the bus full). */
export function isRetryLater (error: unknown): boolean {
  return error instanceof ScaleUnavailableError
}

/** The answer to request `id` that failed with such an `error`: -32603 with its message, marked {@link kRetryLater}. */
export function retryLaterFailure (id: JsonRpcId, error: Error): JsonRpcMessage {
  // A symbol key: never serialized, seen only by the transport that holds the object.
  return Object.assign(failure(id, ErrorCode.InternalError, error.message), { [kRetryLater]: true })
}

/** Whether an answer is marked {@link kRetryLater}. */
export function retriesLater (message: JsonRpcMessage): boolean {
  return (message as { [kRetryLater]?: boolean })[kRetryLater] === true
}
