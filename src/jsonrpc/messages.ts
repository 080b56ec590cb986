/**
 * JSON-RPC 2.0 message shapes and the one place that decides what an incoming
 * value is. Transports parse bytes into JSON, then call `classifyMessage`; the
 * dispatcher only ever sees well-formed messages.
 */
export type JsonRpcId = string | number

export interface JsonRpcRequest {
  jsonrpc: '2.0'
  id: JsonRpcId
  method: string
  params?: Record<string, unknown>
}

export interface JsonRpcNotification {
  jsonrpc: '2.0'
  method: string
  params?: Record<string, unknown>
}

export interface JsonRpcErrorObject {
  code: number
  message: string
  data?: unknown
}

export interface JsonRpcSuccess {
  jsonrpc: '2.0'
  id: JsonRpcId
  result: Record<string, unknown>
}

export interface JsonRpcFailure {
  jsonrpc: '2.0'
  id: JsonRpcId | null
  error: JsonRpcErrorObject
}

export type JsonRpcResponse = JsonRpcSuccess | JsonRpcFailure
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse

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
  ConnectionClosed: -32004
} as const

export type ClassifiedMessage =
  | { kind: 'request', message: JsonRpcRequest }
  | { kind: 'notification', message: JsonRpcNotification }
  | { kind: 'response', message: JsonRpcResponse }
  | { kind: 'invalid', id: JsonRpcId | null, reason: string }

function isPlainObject (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function isValidId (value: unknown): value is JsonRpcId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))
}

/**
 * Decides what a parsed JSON value is. Anything that is not exactly a JSON-RPC
 * 2.0 request, notification or response is `invalid`, with the id echoed back
 * only when it is a usable id (so a reply can still be correlated).
 */
export function classifyMessage (value: unknown): ClassifiedMessage {
  if (!isPlainObject(value)) {
    return { kind: 'invalid', id: null, reason: Array.isArray(value) ? 'JSON-RPC batches are not supported' : 'a JSON-RPC message must be an object' }
  }
  const id = isValidId(value.id) ? value.id : null
  if (value.jsonrpc !== '2.0') return { kind: 'invalid', id, reason: 'jsonrpc must be "2.0"' }
  if ('method' in value) {
    if (typeof value.method !== 'string' || value.method.length === 0) {
      return { kind: 'invalid', id, reason: 'method must be a non-empty string' }
    }
    if (value.params !== undefined && !isPlainObject(value.params)) {
      return { kind: 'invalid', id, reason: 'params must be an object' }
    }
    if (!('id' in value)) return { kind: 'notification', message: value as unknown as JsonRpcNotification }
    if (id === null) return { kind: 'invalid', id: null, reason: 'id must be a string or a number' }
    return { kind: 'request', message: value as unknown as JsonRpcRequest }
  }
  if ('result' in value || 'error' in value) {
    if (id === null && value.id !== null) return { kind: 'invalid', id: null, reason: 'id must be a string or a number' }
    if ('result' in value && !isPlainObject(value.result)) return { kind: 'invalid', id, reason: 'result must be an object' }
    if ('error' in value && (!isPlainObject(value.error) || typeof value.error.code !== 'number')) {
      return { kind: 'invalid', id, reason: 'error must be an object with a numeric code' }
    }
    return { kind: 'response', message: value as unknown as JsonRpcResponse }
  }
  return { kind: 'invalid', id, reason: 'not a request, notification or response' }
}

export function success (id: JsonRpcId, result: Record<string, unknown>): JsonRpcSuccess {
  return { jsonrpc: '2.0', id, result }
}

export function failure (id: JsonRpcId | null, code: number, message: string, data?: unknown): JsonRpcFailure {
  const error: JsonRpcErrorObject = data === undefined ? { code, message } : { code, message, data }
  return { jsonrpc: '2.0', id, error }
}

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
