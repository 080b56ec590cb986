import type { FastifyRequest } from 'fastify'
import { InvalidMessageError, UnsupportedMediaTypeError } from '../../errors.js'
import { classifyMessage, type ClassifiedMessage } from '../../jsonrpc/messages.js'

/** A message the server can act on: a request, a notification or a response. */
export type PostedMessage = Exclude<ClassifiedMessage, { kind: 'invalid' }>

/** The JSON-RPC message a POST carries: 415 without a JSON body, 400 when the body is not one message. */
export function postedMessage (request: FastifyRequest): PostedMessage {
  // No Content-Type and no body: nothing was parsed, and only JSON is accepted.
  if (request.body === undefined) throw new UnsupportedMediaTypeError()
  const classified = classifyMessage(request.body)
  if (classified.kind === 'invalid') throw new InvalidMessageError(classified.reason)
  return classified
}
