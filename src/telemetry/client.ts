import { SpanKind, SpanStatusCode, trace, type Attributes } from '@opentelemetry/api'
import { type JsonRpcId } from '../jsonrpc/messages.js'
import { ErrorCode, McpError, RequestCancelledError } from '../jsonrpc/errors.js'
import {
  ATTR_ERROR_TYPE, ATTR_JSONRPC_REQUEST_ID, ATTR_MCP_METHOD_NAME, ATTR_MCP_PROTOCOL_VERSION, ATTR_MCP_SESSION_ID,
  ATTR_RPC_RESPONSE_STATUS_CODE, CANCELLED, OTHER, TIMEOUT
} from './names.js'
import { setNetwork } from './network.js'
import { NOOP_SPAN, type ServerOperation } from './operation.js'
import { injectIntoParams } from './propagation.js'

/** Sends the request with these params; reports the JSON-RPC id it was given. */
export type SendRequest = (params: Record<string, unknown>, onId: (id: JsonRpcId) => void) => Promise<Record<string, unknown>>

/**
 * A server-to-client request (sampling, elicitation, roots) made while handling `parent`: a
 * CLIENT span, child of the server span, whose context goes to the client in `params._meta`
 * (so the client's own handling can join the trace). Without a tracer the params go out as given.
 */
export async function tracedClientRequest (parent: ServerOperation, method: string, params: Record<string, unknown> | undefined, send: SendRequest): Promise<Record<string, unknown>> {
  const tracer = parent.tracer
  if (tracer === undefined || parent.span === NOOP_SPAN) return await send(params ?? {}, noop)
  const { input } = parent
  const attributes: Attributes = { [ATTR_MCP_METHOD_NAME]: method }
  setNetwork(attributes, input.peer, false)
  if (input.sessionId !== undefined) attributes[ATTR_MCP_SESSION_ID] = input.sessionId
  const version = input.protocolVersion()
  if (version !== undefined) attributes[ATTR_MCP_PROTOCOL_VERSION] = version
  const span = tracer.startSpan(method, { kind: SpanKind.CLIENT, attributes }, parent.context)
  const traced = injectIntoParams(params, trace.setSpan(parent.context, span))
  try {
    const result = await send(traced, (id) => { span.setAttribute(ATTR_JSONRPC_REQUEST_ID, String(id)) })
    span.end()
    return result
  } catch (error) {
    // Client side, the conventions count every JSON-RPC error code as an error.
    const code = error instanceof McpError ? error.code : undefined
    let errorType = OTHER
    if (code === ErrorCode.RequestTimeout) errorType = TIMEOUT
    else if (code === ErrorCode.ConnectionClosed) errorType = CANCELLED
    else if (error instanceof RequestCancelledError) errorType = CANCELLED
    else if (code !== undefined) {
      errorType = String(code)
      span.setAttribute(ATTR_RPC_RESPONSE_STATUS_CODE, errorType)
    }
    span.setAttribute(ATTR_ERROR_TYPE, errorType)
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : undefined })
    span.end()
    throw error
  }
}

function noop (): void {}
