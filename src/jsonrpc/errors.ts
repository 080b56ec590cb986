/**
 * Standard JSON-RPC codes plus the MCP and transport codes this server answers with, one code per
 * meaning. The server's own codes stay in -32000..-32019, the range MCP 2026-07-28 leaves to
 * implementations ("legacy"); -32020..-32099 are reserved for MCP itself. The README's error
 * contract lists them.
 */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** HTTP transport: the request was refused before it reached the protocol; the HTTP status says why (403, 405, 406, 503). */
  TransportRefused: -32000,
  /** HTTP transport: the session id is unknown or the session has ended (HTTP 404). */
  SessionNotFound: -32001,
  /** MCP up to 2025-11-25: resources/read of a URI no resource or template matches. */
  ResourceNotFound: -32002,
  /** A server-to-client request (sampling, elicitation, roots) got no answer within `requestTimeoutMs`. */
  RequestTimeout: -32003,
  /** The session closed (client gone, server stopping) before the request was answered. */
  ConnectionClosed: -32004,
  /**
   * The caller lacks scopes an operation's access rule requires (HTTP: 403 with a
   * `WWW-Authenticate: Bearer error="insufficient_scope"` challenge); `data.requiredScopes` lists
   * every scope the operation needs, `data.missingScopes` those the caller lacks.
   */
  InsufficientScope: -32005,
  /**
   * The caller is over a rate limit (`rateLimit`; HTTP: 429 with `Retry-After`); `data.retryAfterMs`
   * says when the budget is back, `data.limit` and `data.windowMs` what it is.
   */
  RateLimited: -32006
} as const

/**
 * Thrown by handlers (or by the dispatcher) to answer a request with a specific
 * JSON-RPC error. Any other thrown value becomes a generic -32603 with no detail,
 * so internal messages and stacks never reach the client.
 */
export class McpError extends Error {
  readonly code: number
  readonly data: unknown
  constructor (code: number, message: string, data?: unknown) {
    super(message)
    this.name = 'McpError'
    this.code = code
    this.data = data
  }
}

/**
 * What a cancelled request rejects with: the handler's abort reason when the client cancels, and
 * a server-to-client request the server gave up on. An `McpError` like any other to its reader;
 * its class is what telemetry counts as a cancel (never the message text).
 */
export class RequestCancelledError extends McpError {
  constructor (reason?: string) {
    super(ErrorCode.InvalidRequest, reason === undefined ? 'Request cancelled' : `Request cancelled: ${reason}`)
  }
}
