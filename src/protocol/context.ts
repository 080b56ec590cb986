import type { Span } from '@opentelemetry/api'
import type { JsonRpcId } from '../jsonrpc/messages.js'
import type { HttpContext } from './http.js'
import type { Principal } from './principal.js'
import type { LogLevel } from './session.js'

export interface ServerRequestOptions {
  /** Milliseconds to wait for the client's answer; default: the server's `requestTimeoutMs`. 2025 sessions only. */
  timeoutMs?: number
  /** Aborts the request (defaults to the handler's own signal). 2025 sessions only. */
  signal?: AbortSignal
  /**
   * Protocol 2026-07-28: the key naming this question in `inputRequests` and its answer in
   * `inputResponses`, unique within the request (1 to 128 characters). Default: derived from the
   * call's position among the handler's asks and a digest of its method and params, so a changed
   * question never receives an old answer. A fixed key keeps its answer only while the question
   * stays the same. Ignored on 2025 sessions.
   */
  key?: string
}

/** Everything a tool, resource or prompt handler may need, on every transport. */
export interface HandlerContext {
  /**
   * Id of the session the request came from. A 2026-07-28 request has no session (the revision is
   * stateless): there it is the empty string, also in a task such a request started. Key
   * per-client state by `auth` (or a task by its id), never by this, on that revision.
   */
  session: string
  /**
   * The principal verified for the HTTP request that carried this call: its own scopes, claims
   * and expiry, which may differ from those of the credential that opened the session (same
   * identity). Undefined without auth (and always on stdio). A legacy SSE POST that scale-out
   * forwarded to the instance holding its stream has its own identity, scopes and expiry there,
   * and the claims of the credential that opened the stream (claims never go through Redis).
   */
  auth: Principal | undefined
  /**
   * The HTTP request that carried this call (method, path, address, headers without credentials,
   * the verified credential, and the headers safe to forward to an API behind); the same on 2025
   * sessions, legacy SSE and 2026-07-28 requests. Undefined on stdio.
   */
  http: HttpContext | undefined
  /** Aborted when the client cancels the request or disconnects. */
  signal: AbortSignal
  /** The JSON-RPC id of the request being handled. */
  requestId: JsonRpcId
  /** The protocol version negotiated with this client. */
  protocolVersion: string
  /** The request's `_meta`, when the client sent one. */
  meta: Record<string, unknown> | undefined
  /**
   * Whether the client renders MCP Apps: it declared `io.modelcontextprotocol/ui` with
   * `text/html;profile=mcp-app` among its `mimeTypes`. When false, a tool linked to an app is just
   * a tool: its text content is all the user sees, so make it say everything.
   */
  appsSupported: boolean
  /** Reports progress; a no-op when the client asked for none (no progressToken). */
  progress: (progress: number, total?: number, message?: string) => void
  /** Sends a log notification to this client, honouring its `logging/setLevel`. */
  log: (level: LogLevel, data: unknown, logger?: string) => void
  /**
   * Asks the client's model for a completion (`sampling/createMessage`). On a 2025 session, a
   * request to the client; on a 2026-07-28 request, a multi-round-trip question: unanswered, it
   * ends the call with `input_required` and the handler runs again, from the top, when the client
   * retries with the answer (see the README, "Multi-round-trip requests").
   */
  sample: (params: Record<string, unknown>, options?: ServerRequestOptions) => Promise<Record<string, unknown>>
  /** Asks the user for input through the client (`elicitation/create`); 2026-07-28: as {@link sample}. */
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
  /** Lists the client's roots (`roots/list`); 2026-07-28: as {@link sample}. */
  listRoots: (options?: ServerRequestOptions) => Promise<Record<string, unknown>>
  /**
   * For a tool with `execution.taskStart: 'handler'`: ends the synchronous part of the call. When
   * the call may become a task (a 2026-07-28 client that declared the Tasks extension, a tool
   * with task support), the call answers now with the task and the rest of the handler runs as
   * that task: from here on `ctx.signal`, the asks and `progress` are the task's (read
   * `ctx.signal` again after this). Resolves true when the handler runs as a task (also when it
   * already did), false when it goes on inside the call (any other request).
   */
  startTask: () => Promise<boolean>
  /**
   * The OpenTelemetry SERVER span of this request (`tools/call {tool}`...), to add attributes or
   * events: `ctx.span.setAttribute('app.city', city)`. The handler also runs with this span
   * active, so `trace.getActiveSpan()` and `tracer.startActiveSpan()` give it or a child of it
   * (with the SDK's context manager registered, as `NodeTracerProvider.register()` does). A
   * non-recording span, cheap to call, when no SDK is registered or telemetry is off.
   */
  span: Span
}
