import { ErrorCode, McpError } from '../jsonrpc/errors.js'
import { failure, success, type JsonRpcNotification, type JsonRpcRequest, type JsonRpcResponse } from '../jsonrpc/messages.js'

/**
 * What a client's protocol layer needs from a transport, whatever carries the bytes: the stdio
 * runner over in-memory streams, a child process, `app.inject()`, `fetch`. A transport delivers
 * what the server sends to {@link Inbound}; requests resolve with their response message, an
 * error response included (the protocol layer turns it into an `McpError`).
 */

/** Where a transport delivers what the server sends besides responses. */
export interface Inbound {
  notification: (message: JsonRpcNotification) => void
  /** A server-to-client request (2025-11-25 sessions); its answer, or a thrown McpError. */
  request: (message: JsonRpcRequest) => Promise<Record<string, unknown>>
}

export interface SendOptions {
  /** HTTP only: headers of this request (the generation's own; the transport adds its base ones). */
  headers?: Record<string, string>
  /** Aborting it abandons the request, see {@link Channel.request}. */
  signal?: AbortSignal
  /**
   * How an abort tells the server: `notify` sends `notifications/cancelled` (2025-11-25, and
   * 2026-07-28 on stdio); `close` only closes the request's HTTP stream (2026-07-28 over HTTP).
   */
  cancel?: 'notify' | 'close'
  /** The caller may abort this request (it gave a signal), as opposed to a timeout only. */
  cancellable?: boolean
}

export interface Channel {
  /** Which kind of wire this is: the 2026-07-28 leg differs (headers, cancellation) between them. */
  readonly kind: 'stream' | 'http'
  /**
   * Sends a request; resolves with its response. An aborted `signal` rejects with the signal's
   * reason at once (after telling the server, as `cancel` says).
   */
  request: (message: JsonRpcRequest, options?: SendOptions) => Promise<JsonRpcResponse>
  notify: (message: JsonRpcNotification, options?: SendOptions) => Promise<void>
  /**
   * HTTP sessions only: opens the standalone stream that carries what the server sends outside
   * any request (list changes, resource updates). Other transports carry those already.
   */
  openEvents?: (headers: Record<string, string>) => Promise<void>
  /** Releases everything the transport holds (streams, the session, a child process). Idempotent. */
  close: () => Promise<void>
}

/** The JSON-RPC `notifications/cancelled` for `requestId`. */
export function cancelledNotification (requestId: JsonRpcRequest['id'], reason: string): JsonRpcNotification {
  return { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason } }
}

/** The client's response to a server-to-client request: the test's answer, or its error (an McpError's code kept). */
export async function answerServerRequest (inbound: Inbound, request: JsonRpcRequest): Promise<JsonRpcResponse> {
  try {
    return success(request.id, await inbound.request(request))
  } catch (error) {
    return error instanceof McpError
      ? failure(request.id, error.code, error.message, error.data)
      : failure(request.id, ErrorCode.InternalError, error instanceof Error ? error.message : String(error))
  }
}

/** What a signal aborted with, as an Error to reject with. */
export function abortReason (signal: AbortSignal): Error {
  const reason: unknown = signal.reason
  return reason instanceof Error ? reason : new Error(typeof reason === 'string' ? reason : 'The request was cancelled')
}
