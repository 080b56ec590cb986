import type { Static, TSchema } from '@sinclair/typebox'
import type { HandlerContext } from './context.js'

/** A plain JSON Schema object (any draft; 2020-12 when `$schema` is absent). */
export type JsonSchema = Record<string, unknown>

/** Handler arguments: typed from a TypeBox schema, a plain record otherwise. */
export type ArgsOf<S> = S extends TSchema ? Static<S> : Record<string, unknown>

export interface Icon {
  src: string
  mimeType?: string
  sizes?: string[]
  theme?: 'light' | 'dark'
}

export interface Annotations {
  audience?: Array<'user' | 'assistant'>
  priority?: number
  lastModified?: string
}

export interface TextContent { type: 'text', text: string, annotations?: Annotations, _meta?: Record<string, unknown> }
export interface ImageContent { type: 'image', data: string, mimeType: string, annotations?: Annotations, _meta?: Record<string, unknown> }
export interface AudioContent { type: 'audio', data: string, mimeType: string, annotations?: Annotations, _meta?: Record<string, unknown> }
export interface ResourceLink { type: 'resource_link', uri: string, name: string, title?: string, description?: string, mimeType?: string, annotations?: Annotations }
export interface EmbeddedResource { type: 'resource', resource: ResourceContents, annotations?: Annotations }
export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource

export type ResourceContents =
  | { uri: string, mimeType?: string, text: string, _meta?: Record<string, unknown> }
  // Binary contents: a Uint8Array is base64-encoded for you.
  | { uri: string, mimeType?: string, blob: string | Uint8Array, _meta?: Record<string, unknown> }

// ---- tools ------------------------------------------------------------------

export interface ToolAnnotations {
  title?: string
  readOnlyHint?: boolean
  destructiveHint?: boolean
  idempotentHint?: boolean
  openWorldHint?: boolean
}

/** How a tool runs when called: see {@link ToolDefinition.execution}. */
export interface ToolExecution {
  /**
   * Whether the tool may run as a task (MCP Tasks extension, `io.modelcontextprotocol/tasks`,
   * protocol 2026-07-28). A task call answers at once with a task handle (`resultType: "task"`);
   * the handler runs detached and the client polls `tasks/get` for its result.
   * - `'forbidden'` (default): always answered in the request, like any tool.
   * - `'optional'`: a task for clients that declare the extension, a plain answer for the others.
   * - `'required'`: only clients that declare the extension may call it; others get -32021
   *   (2026-07-28) or -32601 (older revisions, which do not have the extension).
   */
  taskSupport?: 'forbidden' | 'optional' | 'required'
  /**
   * When a task call becomes a task (for the calls that get one, see {@link taskSupport}):
   * - `'call'` (default): at once; the call answers with the task before the handler runs, and
   *   the handler's `ctx.elicit/sample/listRoots` go through `tasks/update`.
   * - `'handler'`: when the handler calls `ctx.startTask()`. Until then it runs inside the call,
   *   so its asks are multi-round-trip rounds (`input_required`, the handler re-run with the
   *   answers); `startTask()` answers the call with the task and the rest of the handler runs as
   *   it (SEP-2663: gather the input synchronously, then go asynchronous). A handler that returns
   *   without calling it answers the call with its result.
   */
  taskStart?: 'call' | 'handler'
}

export interface ToolDefinition<I extends TSchema | JsonSchema = JsonSchema, O extends TSchema | JsonSchema = JsonSchema> {
  /** Unique name, 1-128 characters of `[A-Za-z0-9_.-]`. */
  name: string
  title?: string
  description?: string
  /** Arguments schema: TypeBox (handler args typed) or plain JSON Schema, sent to clients as given. Default: an empty object schema. */
  inputSchema?: I
  /**
   * When set, results must carry `structuredContent` matching it. Any JSON Schema (2020-12 unless
   * `$schema` says otherwise); clients before 2026-07-28 only know object schemas, so they are sent
   * a non-object one (and its non-object results) without it, as text content only.
   */
  outputSchema?: O
  annotations?: ToolAnnotations
  icons?: Icon[]
  /** Task support; default `{ taskSupport: 'forbidden' }`. See {@link ToolExecution}. */
  execution?: ToolExecution
  _meta?: Record<string, unknown>
}

export interface ToolResult {
  content?: ContentBlock[]
  /** Any JSON value (2026-07-28); an object for clients of earlier revisions. */
  structuredContent?: unknown
  isError?: boolean
  _meta?: Record<string, unknown>
}

export type ToolHandler<A> = (args: A, ctx: HandlerContext) => ToolResult | Promise<ToolResult>

// ---- resources --------------------------------------------------------------

/** Names of the `{var}` / `{+var}` expressions of a URI template, as a record type. */
export type TemplateParams<U extends string> =
  U extends `${string}{${infer Expr}}${infer Rest}`
    ? { [K in (Expr extends `${'+' | '#'}${infer N}` ? N : Expr)]: string } & TemplateParams<Rest>
    : {}

export type Completer<C = Record<string, string>> = (value: string, context: { arguments: C }) => string[] | Promise<string[]>

export interface ResourceDefinition<U extends string = string> {
  /** A fixed URI (`docs://readme`) or an RFC 6570 template (`docs://{path}`, `files://{+path}`). */
  uri: U
  name: string
  title?: string
  description?: string
  mimeType?: string
  size?: number
  annotations?: Annotations
  icons?: Icon[]
  /** Argument completers for template variables (`completion/complete`). */
  complete?: { [K in keyof TemplateParams<U>]?: Completer }
  _meta?: Record<string, unknown>
}

export interface ResourceResult { contents: ResourceContents[], _meta?: Record<string, unknown> }

export interface ResourceContext<P> extends HandlerContext {
  /** Values of the template's variables (empty for a fixed URI). */
  params: P
}

export type ResourceHandler<U extends string> = (uri: string, ctx: ResourceContext<TemplateParams<U>>) => ResourceResult | Promise<ResourceResult>

// ---- prompts ----------------------------------------------------------------

export interface PromptArgument {
  name: string
  title?: string
  description?: string
  required?: boolean
  /** Suggests values for this argument (`completion/complete`). */
  complete?: Completer
}

/** Prompt handler arguments: required ones are strings, optional ones may be absent. */
export type PromptArgs<A extends readonly PromptArgument[]> =
  { [K in A[number] as K extends { required: true } ? K['name'] : never]: string } &
  { [K in A[number] as K extends { required: true } ? never : K['name']]?: string }

export interface PromptDefinition<A extends readonly PromptArgument[] = readonly PromptArgument[]> {
  name: string
  title?: string
  description?: string
  arguments?: A
  icons?: Icon[]
  _meta?: Record<string, unknown>
}

export interface PromptMessage {
  role: 'user' | 'assistant'
  content: ContentBlock
}

export interface PromptResult { description?: string, messages: PromptMessage[], _meta?: Record<string, unknown> }

export type PromptHandler<A extends readonly PromptArgument[]> = (args: PromptArgs<A>, ctx: HandlerContext) => PromptResult | Promise<PromptResult>
