import { STATUS_CODES } from 'node:http'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { BodyTooLargeError, ParseError, RateLimitedError, UnsupportedMediaTypeError } from '../../errors.js'
import { failure, type JsonRpcId } from '../../jsonrpc/messages.js'
import type { InsufficientScopeDenial, RateLimitedDenial } from '../../protocol/authz/denials.js'
import { ErrorCode } from '../../jsonrpc/errors.js'
import { RETRY_AFTER_SECONDS } from '../../util/retry-after.js'

/** A transport failure: HTTP status, JSON-RPC code and a message that never echoes the request. */
export interface TransportError {
  statusCode: number
  code: string
  message: string
}

// The JSON-RPC code each coded error carries in its body. Everything else in
// the 4xx range is an invalid request; server faults are internal errors.
const JSON_RPC_CODES: Readonly<Record<string, number>> = {
  FST_MCP_PARSE_ERROR: ErrorCode.ParseError,
  FST_MCP_UNKNOWN_SESSION: ErrorCode.SessionNotFound,
  FST_MCP_FORBIDDEN_ORIGIN: ErrorCode.TransportRefused,
  FST_MCP_FOREIGN_SESSION: ErrorCode.TransportRefused,
  FST_MCP_AT_CAPACITY: ErrorCode.TransportRefused,
  FST_MCP_SESSION_QUOTA: ErrorCode.TransportRefused,
  FST_MCP_NOT_ACCEPTABLE: ErrorCode.TransportRefused,
  FST_MCP_METHOD_NOT_ALLOWED: ErrorCode.TransportRefused,
  FST_MCP_INSUFFICIENT_SCOPE: ErrorCode.InsufficientScope,
  FST_MCP_RATE_LIMITED: ErrorCode.RateLimited
}

/** The JSON-RPC error code that goes with a transport error. */
export function jsonRpcCodeOf (error: TransportError): number {
  const mapped = JSON_RPC_CODES[error.code]
  if (mapped !== undefined) return mapped
  return error.statusCode >= 500 ? ErrorCode.InternalError : ErrorCode.InvalidRequest
}

/** The request a refusal answers, when it is one JSON-RPC request's: its id and the error's data. */
export interface RefusedRequest {
  id: JsonRpcId
  data?: unknown
}

/**
 * Answers with the error contract: the status, a JSON-RPC error body (`id: null`, or the id of the
 * one request refused), and `Retry-After` on 503 and 429 (unless a more precise one was set). The
 * one place that writes these bodies.
 */
export function sendTransportError (reply: FastifyReply, error: TransportError, refused?: RefusedRequest): FastifyReply {
  if ((error.statusCode === 503 || error.statusCode === 429) && !reply.hasHeader('retry-after')) reply.header('Retry-After', String(RETRY_AFTER_SECONDS))
  return reply
    .code(error.statusCode)
    .type('application/json; charset=utf-8')
    .send(failure(refused?.id ?? null, jsonRpcCodeOf(error), error.message, refused?.data))
}

/**
 * 403 step-up: the request's operation needs scopes its credential lacks. `challenge` is the
 * `WWW-Authenticate` value naming every scope it needs (see `scopeChallenge`); the body is the
 * -32005 error every transport answers, with the request's id.
 */
export function sendStepUp (reply: FastifyReply, id: JsonRpcId, denial: InsufficientScopeDenial, challenge: string): FastifyReply {
  reply.header('WWW-Authenticate', challenge).header('Cache-Control', 'no-store')
  return sendTransportError(reply, { statusCode: 403, code: 'FST_MCP_INSUFFICIENT_SCOPE', message: denial.message }, { id, data: denial.data })
}

/**
 * 429: over a budget (`rateLimit`, or a definition's). `Retry-After` says when the window that
 * refused it ends, with the headers @fastify/rate-limit sends (`x-ratelimit-limit`,
 * `x-ratelimit-remaining`, `x-ratelimit-reset`); the body is the -32006 error, with the request's id.
 */
export function sendRateLimited (reply: FastifyReply, id: JsonRpcId, denial: RateLimitedDenial): FastifyReply {
  const seconds = String(Math.max(1, Math.ceil(denial.retryAfterMs / 1000)))
  reply.header('x-ratelimit-limit', String(denial.limit)).header('x-ratelimit-remaining', '0').header('x-ratelimit-reset', seconds).header('Retry-After', seconds)
  return sendTransportError(reply, new RateLimitedError(denial.message), { id, data: denial.data })
}

/**
 * Maps whatever reached the error handler onto the contract. Fastify's own
 * body errors are replaced by ours (its messages can quote the Content-Type);
 * unknown errors keep only their status, with the standard reason phrase.
 */
export function toTransportError (error: FastifyError, request: FastifyRequest): TransportError {
  switch (error.code) {
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ParseError()
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new BodyTooLargeError(request.routeOptions.bodyLimit)
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new UnsupportedMediaTypeError()
  }
  const statusCode = typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 600 ? error.statusCode : 500
  // Our coded errors are written never to quote the request: their text is the contract's.
  if (isOwnError(error)) return { statusCode, code: error.code, message: error.message }
  return { statusCode, code: error.code ?? 'FST_MCP_INTERNAL', message: statusCode >= 500 ? 'Internal error' : STATUS_CODES[statusCode] ?? 'Bad request' }
}

function isOwnError (error: FastifyError): boolean {
  return typeof error.code === 'string' && error.code.startsWith('FST_MCP_') && typeof error.statusCode === 'number'
}

/**
 * The error handler of the MCP child instance: every failure on an MCP route
 * leaves as a contract body, never a stack or a copy of the request body.
 */
export function transportErrorHandler (error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const mapped = toTransportError(error, request)
  if (mapped.statusCode >= 500 && !isOwnError(error)) request.log.error({ err: error }, 'MCP transport error')
  return sendTransportError(reply, mapped)
}
