import type {
  Annotations, ContentBlock, Icon, PromptMessage, ResourceContents, ToolAnnotations
} from '../protocol/definitions.js'
import type { LogLevel } from '../protocol/session.js'

/**
 * What `fastify-mcp-server/testing` hands back: MCP results as a client reads them, the same on
 * both protocol generations. The generation's envelope is taken off every result (`resultType`,
 * the reserved `io.modelcontextprotocol/*` keys of `_meta`, and the caching fields `ttlMs` and
 * `cacheScope`), so that one assertion holds on 2026-07-28 and on 2025-11-25; `client.request()`
 * gives a result untouched.
 */

/** The two protocol generations a test client speaks. */
export type TestProtocolVersion = '2026-07-28' | '2025-11-25'

export interface Tool {
  name: string
  title?: string
  description?: string
  inputSchema: Record<string, unknown>
  outputSchema?: Record<string, unknown>
  annotations?: ToolAnnotations
  icons?: Icon[]
  execution?: { taskSupport?: 'forbidden' | 'optional' | 'required' }
  _meta?: Record<string, unknown>
}

export interface Resource {
  uri: string
  name: string
  title?: string
  description?: string
  mimeType?: string
  size?: number
  annotations?: Annotations
  icons?: Icon[]
  _meta?: Record<string, unknown>
}

export interface ResourceTemplate {
  uriTemplate: string
  name: string
  title?: string
  description?: string
  mimeType?: string
  annotations?: Annotations
  icons?: Icon[]
  _meta?: Record<string, unknown>
}

export interface Prompt {
  name: string
  title?: string
  description?: string
  arguments?: Array<{ name: string, title?: string, description?: string, required?: boolean }>
  icons?: Icon[]
  _meta?: Record<string, unknown>
}

/** One page of a list; `nextCursor` when there is another (pass it as `cursor`). */
export interface Page { nextCursor?: string }
export interface ListToolsResult extends Page { tools: Tool[] }
export interface ListResourcesResult extends Page { resources: Resource[] }
export interface ListResourceTemplatesResult extends Page { resourceTemplates: ResourceTemplate[] }
export interface ListPromptsResult extends Page { prompts: Prompt[] }

/** A `tools/call` answer. `S` types `structuredContent` when the test knows the tool's output schema. */
export interface CallToolResult<S = unknown> {
  content: ContentBlock[]
  structuredContent?: S
  isError?: boolean
  _meta?: Record<string, unknown>
}

export interface GetPromptResult {
  description?: string
  messages: PromptMessage[]
  _meta?: Record<string, unknown>
}

/** Binary contents arrive base64-encoded, as on the wire. */
export type ReadResourceContents = Exclude<ResourceContents, { blob: unknown }> | { uri: string, mimeType?: string, blob: string, _meta?: Record<string, unknown> }

export interface ReadResourceResult {
  contents: ReadResourceContents[]
  _meta?: Record<string, unknown>
}

export type CompletionReference = { type: 'ref/prompt', name: string } | { type: 'ref/resource', uri: string }

export interface CompleteResult {
  completion: { values: string[], total?: number, hasMore?: boolean }
}

/**
 * What the server says about itself: `server/discover` on 2026-07-28, the `initialize` answer on
 * 2025-11-25 (where `supportedVersions` is the one version the session agreed on).
 */
export interface DiscoverResult {
  /** The version this client speaks with the server. */
  protocolVersion: string
  supportedVersions: string[]
  serverInfo: { name: string, version: string, title?: string, [key: string]: unknown }
  capabilities: Record<string, unknown>
  instructions?: string
}

/** A `notifications/progress` the server sent about one of this client's requests. */
export interface ProgressEvent {
  progressToken: string | number
  progress: number
  total?: number
  message?: string
}

/** A `notifications/message` (a log line the server sent this client). */
export interface LogEvent {
  level: LogLevel
  data: unknown
  logger?: string
}

/** Any notification the server sent, as received. */
export interface Notification {
  method: string
  params?: Record<string, unknown>
}

/** `elicitation/create` params: what the server asks the user. */
export interface ElicitRequest {
  message: string
  requestedSchema?: Record<string, unknown>
  [key: string]: unknown
}

export interface ElicitResult {
  action: 'accept' | 'decline' | 'cancel'
  content?: Record<string, unknown>
}

/** `sampling/createMessage` params: what the server asks the client's model. */
export interface SampleRequest {
  messages: Array<{ role: 'user' | 'assistant', content: unknown }>
  maxTokens?: number
  systemPrompt?: string
  [key: string]: unknown
}

export interface SampleResult {
  role: 'user' | 'assistant'
  content: ContentBlock | ContentBlock[]
  model: string
  stopReason?: string
}

export interface ListRootsResult {
  roots: Array<{ uri: string, name?: string }>
}

/** The test's answers to what the server asks of the client (elicitation, sampling, roots). */
export interface ClientHandlers {
  /** Answers `ctx.elicit()`; its presence declares the `elicitation` capability. */
  onElicit?: (request: ElicitRequest) => ElicitResult | Promise<ElicitResult>
  /** Answers `ctx.sample()`; its presence declares the `sampling` capability. */
  onSample?: (request: SampleRequest) => SampleResult | Promise<SampleResult>
  /** Answers `ctx.listRoots()`; its presence declares the `roots` capability. */
  onListRoots?: () => ListRootsResult | Promise<ListRootsResult>
}

/** Per-request options. */
export interface RequestOptions {
  /** Aborting it cancels the request (`notifications/cancelled`, or closing its HTTP stream on 2026-07-28). */
  signal?: AbortSignal
  /** Milliseconds to wait for the answer; default: the client's `timeoutMs`. */
  timeoutMs?: number
}

/** A task of the Tasks extension (`io.modelcontextprotocol/tasks`, protocol 2026-07-28). */
export interface Task {
  taskId: string
  status: 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled'
  statusMessage?: string
  createdAt: string
  lastUpdatedAt: string
  ttlMs: number
  pollIntervalMs: number
}

/** `tasks/get`: the task with what its status carries. */
export interface DetailedTask extends Task {
  result?: Record<string, unknown>
  error?: { code: number, message: string, data?: unknown }
  inputRequests?: Record<string, { method: string, params?: Record<string, unknown> }>
}

/** What a task-augmented call answered: a task, or (a tool that finished in the call) its result. */
export type TaskCall = { task: Task, result?: undefined } | { task?: undefined, result: CallToolResult }

/** `subscriptions/listen` filter (2026-07-28); on 2025-11-25 the same changes, heard on the session. */
export interface ListenFilter {
  toolsListChanged?: boolean
  promptsListChanged?: boolean
  resourcesListChanged?: boolean
  resourceSubscriptions?: string[]
  /** Tasks extension: `notifications/tasks` for these tasks (2026-07-28 only). */
  taskIds?: string[]
}

/** An open listen: the changes it asked for, as they come. */
export interface Subscription extends AsyncIterable<Notification> {
  /** The part of the filter the server honours (its acknowledgement). */
  readonly acknowledged: ListenFilter
  /** Notifications received so far, in order (the iterator and `next()` read the same ones). */
  readonly received: readonly Notification[]
  /** The next notification not yet read; rejects after `timeoutMs` (default 5000) without one. */
  next: (timeoutMs?: number) => Promise<Notification>
  /** Ends the listen (and, on 2025-11-25, unsubscribes its resources). Idempotent. */
  close: () => Promise<void>
}
