import {
  context, SpanKind, SpanStatusCode, trace,
  type Attributes, type Context, type Link, type Span, type Tracer
} from '@opentelemetry/api'
import type { JsonRpcMessage } from '../jsonrpc/messages.js'
import type { Instruments } from './providers.js'
import {
  ATTR_CLIENT_ADDRESS, ATTR_CLIENT_PORT, ATTR_ERROR_TYPE, ATTR_GEN_AI_OPERATION_NAME, ATTR_GEN_AI_PROMPT_NAME, ATTR_GEN_AI_TOOL_NAME,
  ATTR_JSONRPC_REQUEST_ID, ATTR_MCP_PROTOCOL_VERSION, ATTR_MCP_RESOURCE_URI,
  ATTR_MCP_SESSION_ID, ATTR_RPC_RESPONSE_STATUS_CODE, CANCELLED, TOOL_ERROR
} from './names.js'
import type { NetworkPeer } from './network.js'
import { extractFromMeta } from './propagation.js'
import { redactUri } from './redact.js'

/** A span that records nothing: `ctx.span` when no tracer is active. Made once. */
export const NOOP_SPAN: Span = trace.wrapSpanContext({ traceId: '00000000000000000000000000000000', spanId: '0000000000000000', traceFlags: 0 })

/** What the operation needs to know about the message and where it came from. */
export interface OperationInput {
  readonly method: string
  readonly id: string | number | undefined
  readonly params: Record<string, unknown> | undefined
  readonly sessionId: string | undefined
  readonly protocolVersion: () => string | undefined
  readonly peer: NetworkPeer | undefined
  /** Whether a tool or prompt of this name is registered: only then does it name the span and the metric. */
  readonly knows: (kind: 'tool' | 'prompt', name: string) => boolean
}

const MAX_NAME = 128

/**
 * One incoming request or notification: its SERVER span (when a tracer is active) and its
 * `mcp.server.operation.duration` point (when a meter is). Built by {@link Telemetry.begin} only
 * when at least one of them is, so that no-SDK servers never allocate one.
 */
export class ServerOperation {
  readonly span: Span
  /** The tracer of the server span, for the CLIENT spans of requests made while handling it. */
  readonly tracer: Tracer | undefined
  /** The context handlers run in: the server span active, for their own child spans. */
  readonly context: Context
  private readonly started = performance.now()
  /** What was sent back to the request, set by the dispatcher; undefined: nothing (yet). */
  answer: JsonRpcMessage | undefined
  private readonly metricAttributes: Attributes
  private readonly instruments: Instruments | undefined
  /** What the operation was started with (the CLIENT spans of server-to-client requests read it too). */
  readonly input: OperationInput
  private readonly tool: string | undefined

  constructor (tracer: Tracer | undefined, instruments: Instruments | undefined, input: OperationInput) {
    this.input = input
    this.instruments = instruments
    this.tracer = tracer
    const { method, params, peer } = input
    // Literals with every key at once (the keys are names.ts's, spelled out): objects of one
    // shape from birth, cheaper to build and for the SDK to read than keys added one by one.
    const metric: Attributes = peer === undefined
      ? { 'mcp.method.name': method, 'network.transport': 'pipe' }
      : { 'mcp.method.name': method, 'network.transport': 'tcp', 'network.protocol.name': 'http', 'network.protocol.version': peer.httpVersion }
    let target: string | undefined
    let uri: string | undefined
    if (method === 'tools/call') {
      target = knownName(input, 'tool', params?.name)
      // The conventions' execute_tool: only for a call of a tool this server has.
      if (target !== undefined) {
        metric[ATTR_GEN_AI_TOOL_NAME] = target
        metric[ATTR_GEN_AI_OPERATION_NAME] = 'execute_tool'
      }
      this.tool = target
    } else if (method === 'prompts/get') {
      target = knownName(input, 'prompt', params?.name)
      if (target !== undefined) metric[ATTR_GEN_AI_PROMPT_NAME] = target
    } else if (typeof params?.uri === 'string' && (method === 'resources/read' || method === 'resources/subscribe' || method === 'resources/unsubscribe')) {
      uri = redactUri(params.uri)
    }
    this.metricAttributes = metric
    if (tracer === undefined) {
      this.span = NOOP_SPAN
      this.context = context.active()
      return
    }
    const attributes: Attributes = { ...metric }
    const socket = peer?.socket
    if (socket?.remoteAddress !== undefined) {
      attributes[ATTR_CLIENT_ADDRESS] = socket.remoteAddress
      if (socket.remotePort !== undefined) attributes[ATTR_CLIENT_PORT] = socket.remotePort
    }
    if (input.id !== undefined) attributes[ATTR_JSONRPC_REQUEST_ID] = String(input.id)
    if (input.sessionId !== undefined) attributes[ATTR_MCP_SESSION_ID] = input.sessionId
    if (uri !== undefined) attributes[ATTR_MCP_RESOURCE_URI] = uri
    // The conventions: the context in `_meta` is the parent; the ambient one (an HTTP server span
    // of the app's HTTP instrumentation) is linked. Without `_meta` context, the ambient one is the parent.
    const ambient = context.active()
    const fromMeta = extractFromMeta(ambient, params?._meta as Record<string, unknown> | undefined)
    let links: Link[] | undefined
    if (fromMeta !== undefined) {
      const ambientSpan = trace.getSpanContext(ambient)
      if (ambientSpan !== undefined && trace.isSpanContextValid(ambientSpan)) links = [{ context: ambientSpan }]
    }
    const parent = fromMeta ?? ambient
    const name = target === undefined ? method : `${method} ${target}`
    this.span = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes, links }, parent)
    this.context = trace.setSpan(parent, this.span)
  }

  /** Runs `fn` with the operation's context active: the handler's own spans become children of the server span. */
  run<T> (fn: () => T): T {
    return context.with(this.context, fn)
  }

  /** The tool called, when it is one of the server's: tools/call results are read for `isError`. */
  get toolName (): string | undefined {
    return this.tool
  }

  /**
   * Ends the operation with what was sent back ({@link answer}): a response, or nothing (a
   * notification; or, with `cancelled`, a request that ended before its answer: MCP sends none).
   */
  end (cancelled: boolean): void {
    const response = this.answer
    const metric = this.metricAttributes
    const version = this.input.protocolVersion()
    if (version !== undefined) metric[ATTR_MCP_PROTOCOL_VERSION] = version
    let errorType: string | undefined
    let description: string | undefined
    if (cancelled) {
      errorType = CANCELLED
      description = 'cancelled before the answer'
    } else if (response !== undefined && 'error' in response) {
      const code = response.error.code
      metric[ATTR_RPC_RESPONSE_STATUS_CODE] = String(code)
      // The conventions (server side): only -32603 and -32000..-32099 classify as errors; the
      // others (parse error, invalid request, unknown method, invalid params, resource not found)
      // are the caller's mistake, recorded by the status code alone.
      if (code === -32603 || (code <= -32000 && code >= -32099)) {
        errorType = String(code)
        description = response.error.message
      }
    } else if (response !== undefined && 'result' in response && this.tool !== undefined && response.result.isError === true) {
      errorType = TOOL_ERROR
    }
    if (errorType !== undefined) metric[ATTR_ERROR_TYPE] = errorType
    this.instruments?.operationDuration.record((performance.now() - this.started) / 1000, metric)
    const span = this.span
    if (span === NOOP_SPAN) return
    if (version !== undefined) span.setAttribute(ATTR_MCP_PROTOCOL_VERSION, version)
    const code = metric[ATTR_RPC_RESPONSE_STATUS_CODE]
    if (code !== undefined) span.setAttribute(ATTR_RPC_RESPONSE_STATUS_CODE, code)
    if (errorType !== undefined) {
      span.setAttribute(ATTR_ERROR_TYPE, errorType)
      span.setStatus(description === undefined ? { code: SpanStatusCode.ERROR } : { code: SpanStatusCode.ERROR, message: description })
    }
    span.end()
  }
}

function knownName (input: OperationInput, kind: 'tool' | 'prompt', name: unknown): string | undefined {
  // A name the server does not have came from the client: on a span name or a metric it would be
  // one series per made-up name. The span still says what was asked for, through its status code.
  if (typeof name !== 'string' || name.length > MAX_NAME || !input.knows(kind, name)) return undefined
  return name
}
