import type { FastifyReply } from 'fastify'
import { failure, type JsonRpcId } from '../../jsonrpc/messages.js'
import { ErrorCode, type McpError } from '../../jsonrpc/errors.js'
import { ModernErrorCode } from '../../protocol/modern/errors.js'

/**
 * The HTTP status of a 2026-07-28 error answer (`streamable-http.mdx`): 400
 * for a malformed `_meta`, a header mismatch, an unsupported version or a
 * missing client capability; 404 for a method this revision does not have.
 * Other errors (an unknown tool, a failed handler) are ordinary JSON-RPC
 * answers: 200.
 */
export function modernStatusOf (code: number | undefined, { ladder }: { ladder: boolean }): number {
  switch (code) {
    case ErrorCode.MethodNotFound:
      return ladder ? 404 : 200
    case ErrorCode.InvalidParams:
      return ladder ? 400 : 200
    case ModernErrorCode.HeaderMismatch:
    case ModernErrorCode.MissingRequiredClientCapability:
    case ModernErrorCode.UnsupportedProtocolVersion:
      return 400
    default:
      return 200
  }
}

/** Answers a request the ladder refused: its status, and a JSON-RPC error carrying the request's id. */
export async function sendModernRefusal (reply: FastifyReply, id: JsonRpcId, error: McpError): Promise<FastifyReply> {
  return await reply
    .code(modernStatusOf(error.code, { ladder: true }))
    .type('application/json; charset=utf-8')
    .send(failure(id, error.code, error.message, error.data))
}
