// The public API, written out name by name: everything here is documented and kept across minor
// versions; anything not here is internal, whatever its module exports. Add a name on purpose.

// Entry points. The default export is the plugin, as every Fastify plugin has it
// (`fastify.register(import('fastify-mcp-server'))` and `import mcp from ...` rely on it).
export { mcp, mcp as default } from './plugin.js'
export type { MCPPluginOptions } from './plugin.js'
export { MCPServer } from './server.js'
export type { StartInfo, StdioStartInfo, HttpStartInfo } from './server.js'
export type { MCPRegistryApi } from './protocol/protocol-server.js'
export type { Registration } from './protocol/registry.js'

// Schemas for tool inputs and outputs: TypeBox 0.34, the same copy the framework validates with.
export { Type } from '@sinclair/typebox'
export type { Static, TSchema } from '@sinclair/typebox'

// Options: what `new MCPServer(options)` and `register(mcp, options)` accept, and their schemas
// (TypeBox, i.e. JSON Schema) for validating a configuration file before starting.
export { ServerOptionsSchema } from './schemas/server.js'
export { PluginOptionsSchema } from './schemas/plugin.js'
export type { ServerOptions, TransportOptions } from './schemas/server.js'
export type { PluginOptions } from './schemas/plugin.js'
export type { HttpTransportOptions, CorsOptions } from './schemas/http.js'
export type { AuthOptions, JwtAuthOptions, ApiKeyAuthOptions, OAuthAuthOptions } from './schemas/auth.js'
export type { JwtAlgorithm } from './auth/algorithms.js'
export type { CacheOptions, CacheHint } from './schemas/cache.js'
export type { TelemetryOptions } from './schemas/telemetry.js'
// Scale-out (several instances on Redis): its options, and the shape of an ioredis client it accepts.
export type { ScaleOutOptions } from './schemas/scale-out.js'
export type { SkillsOptions } from './schemas/skills.js'
// Routes as tools (docs/routes-as-tools.md): the `routes` option and a route's `config.mcp`.
export type { RoutesOptions, RouteMatcher, RoutePredicate, RouteCandidate } from './schemas/routes.js'
export type { RouteToolConfig } from './routes/config.js'
export type { RedisClientLike } from './scale/redis/targets.js'
export type { EventReplay, EventStore, StoredEvent } from './scale/ports.js'
export type { ResolvedServerOptions, InvalidOptions, OptionsProblem } from './schemas/resolve.js'

// Authorization (README, Authorization): access rules and budgets on definitions, operation middleware.
export type { AccessRule, AccessPredicate, AccessContext, RateLimitRule } from './protocol/authz/rules.js'
export type { Middleware, Operation } from './protocol/authz/middleware.js'
export type { RateLimitOptions } from './schemas/authz.js'
export type { TransportKind } from './protocol/session.js'

// Handlers: definitions, results, and the context every handler receives.
export type { HandlerContext, ServerRequestOptions } from './protocol/context.js'
export type { HttpContext, HttpCredential } from './protocol/http.js'
export type { MCPAuthClaims, Principal, PrincipalIdentity } from './protocol/principal.js'
// Session ownership: whether two principals are one identity, and a stable key for one (README, Authentication).
export { principalKey, samePrincipal } from './protocol/principal.js'
export type { LogLevel } from './protocol/session.js'
export type { JsonRpcId } from './jsonrpc/messages.js'
export type {
  JsonSchema, ArgsOf, Icon, Annotations, ToolAnnotations,
  ContentBlock, TextContent, ImageContent, AudioContent, ResourceLink, EmbeddedResource, ResourceContents,
  ToolDefinition, ToolHandler, ToolResult,
  ResourceDefinition, ResourceHandler, ResourceResult, ResourceContext, TemplateParams, Completer,
  PromptDefinition, PromptHandler, PromptResult, PromptMessage, PromptArgument, PromptArgs
} from './protocol/definitions.js'
// Extensions: MCP Apps (io.modelcontextprotocol/ui) and Skills (io.modelcontextprotocol/skills).
export type {
  ToolAppLink, AppResourceDefinition, AppCsp, AppPermissions, SkillDefinition, SkillFolderDefinition, SkillFilesDefinition
} from './protocol/definitions.js'

// Tasks (io.modelcontextprotocol/tasks): the store interface for a custom backend, and the bounded memory store.
export { MemoryTaskStore } from './protocol/tasks/memory-store.js'
export type { StoredTask, TaskInputRequest, TaskLimits, TaskPatch, TaskStatus, TaskStore } from './protocol/tasks/types.js'

// JSON-RPC errors a handler throws (or catches from ctx.sample/elicit/listRoots).
export { McpError, ErrorCode } from './jsonrpc/errors.js'
// 2026-07-28 multi-round-trip requests: what ctx.elicit/sample/listRoots throw to ask the client first.
export { InputRequiredError } from './protocol/modern/mrtr.js'

// Coded errors (@fastify/error; match on `code`). Thrown to the caller: options, registration,
// lifecycle, auth discovery. Answered on the wire (the README's error contract): the rest.
export {
  InvalidOptionsError, InvalidDefinitionError, DuplicateDefinitionError, AlreadyStartedError, StartFailedError,
  ParseError, InvalidMessageError, MissingSessionError, UnknownSessionError, BodyTooLargeError,
  UnsupportedMediaTypeError, NotAcceptableError, ForbiddenOriginError, ForeignSessionError, AtCapacityError, RateLimitedError,
  UnsupportedProtocolVersionError, MethodNotAllowedError, StreamConflictError, InvalidHostError, SessionQuotaError, NotFoundError, TaskLimitError,
  UnauthorizedError, InvalidAuthRequestError, InsufficientScopeError, AuthUnavailableError, AuthDiscoveryFailedError,
  RedisUnreachableError, ScaleUnavailableError, RouteToolNameClashError, RouteToolSchemaError, RouteToolConfigError
} from './errors.js'
