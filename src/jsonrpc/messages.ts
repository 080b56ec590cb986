import { isRecord } from '../util/is-record.js'
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

export type ClassifiedMessage =
  | { kind: 'request', message: JsonRpcRequest }
  | { kind: 'notification', message: JsonRpcNotification }
  | { kind: 'response', message: JsonRpcResponse }
  | { kind: 'invalid', id: JsonRpcId | null, reason: string }

/**
 * Longest request id accepted, in characters. Ids are correlation tokens (SDKs send numbers or
 * UUIDs; this server's own are at most 82 characters), yet one travels with every answer, every
 * cancel and every record of a request in flight: a request or response whose id is longer is
 * invalid (its id is never echoed), and a cancel naming one is ignored, as it names no request
 * this server could be running.
 */
export const MAX_REQUEST_ID_LENGTH = 256

/** A usable JSON-RPC id: a finite number, or a string of at most {@link MAX_REQUEST_ID_LENGTH} characters. */
export function isRequestId (value: unknown): value is JsonRpcId {
  return typeof value === 'string' ? value.length <= MAX_REQUEST_ID_LENGTH : typeof value === 'number' && Number.isFinite(value)
}

const ID_REASON = `id must be a string or a number (a string of at most ${MAX_REQUEST_ID_LENGTH} characters)`

/**
 * Decides what a parsed JSON value is. Anything that is not exactly a JSON-RPC
 * 2.0 request, notification or response is `invalid`, with the id echoed back
 * only when it is a usable id (so a reply can still be correlated).
 */
export function classifyMessage (value: unknown): ClassifiedMessage {
  if (!isRecord(value)) {
    return { kind: 'invalid', id: null, reason: Array.isArray(value) ? 'JSON-RPC batches are not supported' : 'a JSON-RPC message must be an object' }
  }
  const id = isRequestId(value.id) ? value.id : null
  if (value.jsonrpc !== '2.0') return { kind: 'invalid', id, reason: 'jsonrpc must be "2.0"' }
  if ('method' in value) {
    if (typeof value.method !== 'string' || value.method.length === 0) {
      return { kind: 'invalid', id, reason: 'method must be a non-empty string' }
    }
    if (value.params !== undefined && !isRecord(value.params)) {
      return { kind: 'invalid', id, reason: 'params must be an object' }
    }
    if (!('id' in value)) return { kind: 'notification', message: value as unknown as JsonRpcNotification }
    if (id === null) return { kind: 'invalid', id: null, reason: ID_REASON }
    return { kind: 'request', message: value as unknown as JsonRpcRequest }
  }
  if ('result' in value || 'error' in value) {
    if (id === null && value.id !== null) return { kind: 'invalid', id: null, reason: ID_REASON }
    if ('result' in value && !isRecord(value.result)) return { kind: 'invalid', id, reason: 'result must be an object' }
    if ('error' in value && (!isRecord(value.error) || typeof value.error.code !== 'number')) {
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
