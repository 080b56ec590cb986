import type { Static, TSchema } from '@sinclair/typebox'
import type { AccessRule, RateLimitRule } from './authz/rules.js'
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
  /**
   * MCP Apps: the interactive view hosts render for this tool's results, an app resource
   * registered with `appResource()` (before or after the tool, as long as it exists when the
   * server starts). Sent as `_meta.ui` (and the flat `_meta["ui/resourceUri"]` older hosts read).
   */
  ui?: ToolAppLink
  _meta?: Record<string, unknown>
  /**
   * Who may use it: scopes the caller's credential must hold and/or a predicate. Callers it denies do
   * not see it in lists; default: the server's `defaultAuth`, else everyone. Never sent to clients.
   */
  auth?: AccessRule
  /** A budget of calls per client for this one (counted as `rateLimit` is); default: none. */
  rateLimit?: RateLimitRule
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
  /**
   * Who may use it: scopes the caller's credential must hold and/or a predicate. Callers it denies do
   * not see it in lists; default: the server's `defaultAuth`, else everyone. Never sent to clients.
   */
  auth?: AccessRule
  /** A budget of reads per client for this one (counted as `rateLimit` is); default: none. */
  rateLimit?: RateLimitRule
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
  /**
   * Who may use it: scopes the caller's credential must hold and/or a predicate. Callers it denies do
   * not see it in lists; default: the server's `defaultAuth`, else everyone. Never sent to clients.
   */
  auth?: AccessRule
  /** A budget of `prompts/get` per client for this one (counted as `rateLimit` is); default: none. */
  rateLimit?: RateLimitRule
}

export interface PromptMessage {
  role: 'user' | 'assistant'
  content: ContentBlock
}

export interface PromptResult { description?: string, messages: PromptMessage[], _meta?: Record<string, unknown> }

export type PromptHandler<A extends readonly PromptArgument[]> = (args: PromptArgs<A>, ctx: HandlerContext) => PromptResult | Promise<PromptResult>

// ---- MCP Apps (io.modelcontextprotocol/ui) ------------------------------------

/** A tool's link to its app: {@link ToolDefinition.ui}. */
export interface ToolAppLink {
  /** The `ui://` URI of an app resource registered with `appResource()`. */
  resourceUri: string
  /**
   * Who may call the tool: `model` (the agent sees it) and/or `app` (the view may call it through
   * the host). Hosts leave a tool without `model` out of the agent's list. Default both.
   */
  visibility?: Array<'model' | 'app'>
}

/**
 * Origins an app may reach, each `scheme://host[:port]`; a host may start with `*.` for its
 * subdomains (`https://*.example.com`). Hosts build the view's Content-Security-Policy from them
 * and allow nothing undeclared. Every list defaults to none.
 */
export interface AppCsp {
  /** fetch, XHR and WebSocket (`connect-src`). */
  connectDomains?: string[]
  /** Scripts, styles, images, fonts and media (`script-src`, `style-src`, `img-src`, `font-src`, `media-src`). */
  resourceDomains?: string[]
  /** Nested iframes (`frame-src`). */
  frameDomains?: string[]
  /** The document's base URIs (`base-uri`). */
  baseUriDomains?: string[]
}

/** Browser features an app asks for; hosts may grant them (the iframe's `allow` attribute). */
export interface AppPermissions {
  camera?: Record<string, never>
  microphone?: Record<string, never>
  geolocation?: Record<string, never>
  clipboardWrite?: Record<string, never>
}

/** An MCP Apps view: an HTML page served as a `ui://` resource (`text/html;profile=mcp-app`). */
export interface AppResourceDefinition {
  /** `ui://...`: the URI tools link to with `ui.resourceUri`. */
  uri: string
  name: string
  title?: string
  description?: string
  /** The page itself. Exactly one of `html` and `file`. */
  html?: string
  /** A file holding the page, read (UTF-8) on each `resources/read`; a relative path is from the working directory. */
  file?: string
  /** External origins the page needs; default none (the host's restrictive policy). */
  csp?: AppCsp
  permissions?: AppPermissions
  /** A dedicated sandbox origin for the view, in the host's own format (host-specific). */
  domain?: string
  /** Whether the host should draw a border and background around the view; default: the host decides. */
  prefersBorder?: boolean
  /**
   * Whether `resources/list` lists it. Hosts find app resources through the tools that link to
   * them, so an app-only page may stay out of the list; it is readable either way. Default true.
   */
  listed?: boolean
  /** Who may read the page; see {@link ResourceDefinition.auth}. Default: the server's `defaultAuth`. */
  auth?: AccessRule
}

// ---- Skills (io.modelcontextprotocol/skills) ------------------------------------

/** A skill in a folder: `SKILL.md` at its root, every file under it served (`server.skill({ dir })`). */
export interface SkillFolderDefinition {
  /** The skill's folder; its name must be the `name` of its `SKILL.md` frontmatter. */
  dir: string
  /**
   * Who may see the skill and read its files (`skills/list`, `skills/get`, directory reads and
   * `skill://` reads alike); see {@link ResourceDefinition.auth}. Default: the server's `defaultAuth`.
   */
  auth?: AccessRule
}

/** A skill held in memory (`server.skill({ name, files })`). */
export interface SkillFilesDefinition {
  /** The skill's name: the `name` of its `SKILL.md` frontmatter. */
  name: string
  /** Its files by path relative to the skill's root (`SKILL.md`, `references/FORMS.md`); text is UTF-8. */
  files: Readonly<Record<string, string | Uint8Array>>
  /** Who may see the skill and read its files; see {@link SkillFolderDefinition.auth}. */
  auth?: AccessRule
}

export type SkillDefinition = SkillFolderDefinition | SkillFilesDefinition
