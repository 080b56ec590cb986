import { ErrorCode, McpError } from '../jsonrpc/errors.js'
import { isRecord } from '../util/is-record.js'

/**
 * An HTTP answer that refused the request before MCP handled it: a refused credential (401/403,
 * with its `WWW-Authenticate` challenge), an unknown session (404), a body too large (413), a
 * server at capacity (503)... An `McpError` like every other failure: its `code` is the JSON-RPC
 * code of the answer's body when it has one, -32000 (`ErrorCode.TransportRefused`) otherwise.
 */
export class TransportError extends McpError {
  /** The HTTP status. */
  readonly status: number
  /** The answer's headers, lower-cased (`www-authenticate`, `retry-after`...). */
  readonly headers: Readonly<Record<string, string>>
  /** The answer's body: parsed JSON when it was JSON, else its text. */
  readonly body: unknown

  constructor (status: number, headers: Record<string, string>, body: unknown) {
    const { code, message, data } = describe(status, body)
    super(code, message, data)
    this.name = 'TransportError'
    this.status = status
    this.headers = headers
    this.body = body
  }
}

function describe (status: number, body: unknown): { code: number, message: string, data?: unknown } {
  if (isRecord(body) && isRecord(body.error) && typeof body.error.code === 'number') {
    // The transport error contract: a JSON-RPC error body with id null.
    return { code: body.error.code, message: `HTTP ${status}: ${String(body.error.message)}`, data: body.error.data }
  }
  if (isRecord(body) && typeof body.error === 'string') {
    // An auth refusal (RFC 6750): `{ error, error_description }`.
    const description = typeof body.error_description === 'string' ? `: ${body.error_description}` : ''
    return { code: ErrorCode.TransportRefused, message: `HTTP ${status}: ${body.error}${description}` }
  }
  const text = typeof body === 'string' && body !== '' ? `: ${body.slice(0, 200)}` : ''
  return { code: ErrorCode.TransportRefused, message: `HTTP ${status}${text}` }
}
