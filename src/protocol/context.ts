import type { JsonRpcId } from './jsonrpc.js'
import type { Principal } from './principal.js'
import type { LogLevel } from './session.js'

export interface ServerRequestOptions {
  /** Milliseconds to wait for the client's answer; default: the server's `requestTimeoutMs`. */
  timeoutMs?: number
  /** Aborts the request (defaults to the handler's own signal). */
  signal?: AbortSignal
}

/** Everything a tool, resource or prompt handler may need, on every transport. */
export interface HandlerContext {
  /** Id of the session the request came from. */
  session: string
  /**
   * The principal verified for the HTTP request that carried this call: its own scopes, claims
   * and expiry, which may differ from those of the credential that opened the session (same
   * identity). Undefined without auth (and always on stdio).
   */
  auth: Principal | undefined
  /** Aborted when the client cancels the request or disconnects. */
  signal: AbortSignal
  /** The JSON-RPC id of the request being handled. */
  requestId: JsonRpcId
  /** The protocol version negotiated with this client. */
  protocolVersion: string
  /** The request's `_meta`, when the client sent one. */
  meta: Record<string, unknown> | undefined
  /** Reports progress; a no-op when the client asked for none (no progressToken). */
  progress: (progress: number, total?: number, message?: string) => void
  /** Sends a log notification to this client, honouring its `logging/setLevel`. */
  log: (level: LogLevel, data: unknown, logger?: string) => void
  /** Asks the client's model for a completion (`sampling/createMessage`). */
  sample: (params: Record<string, unknown>, options?: ServerRequestOptions) => Promise<Record<string, unknown>>
  /** Asks the user for input through the client (`elicitation/create`). */
  elicit: (params: Record<string, unknown>, options?: ServerRequestOptions) => Promise<Record<string, unknown>>
  /**
   * Ends the HTTP stream carrying this request while the handler goes on; what
   * it sends next (progress, logs, the result) is kept and delivered when the
   * client reconnects with `Last-Event-ID`, after `retryMs` if given. For long
   * calls behind proxies that cut long responses. Streamable HTTP only, with an
   * event store and a client on protocol 2025-11-25 or later; returns false
   * (and does nothing) otherwise.
   */
  closeStream: (retryMs?: number) => boolean
  /** Lists the client's roots (`roots/list`). */
  listRoots: (options?: ServerRequestOptions) => Promise<Record<string, unknown>>
}
