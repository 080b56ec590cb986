import createError from '@fastify/error'

/**
 * Every coded error the framework throws or answers with. HTTP transport
 * errors carry their status; the transports turn them into JSON-RPC error
 * bodies with `id: null` (see `src/transports/replies.ts`). Tests match on `code`.
 */

/** Configuration: the options are invalid; the message lists every problem with its path, `problems` the same as data. */
export const InvalidOptionsError = createError<'FST_MCP_INVALID_OPTIONS', 500, [string]>('FST_MCP_INVALID_OPTIONS', 'Invalid fastify-mcp-server options:\n%s', 500)
/** Registration: a tool, resource or prompt definition is malformed. */
export const InvalidDefinitionError = createError('FST_MCP_INVALID_DEFINITION', 'Invalid %s definition: %s', 500, TypeError)
/** Registration: the name or URI is already registered. */
export const DuplicateDefinitionError = createError('FST_MCP_DUPLICATE_DEFINITION', 'A %s named "%s" is already registered', 500)
/** Lifecycle: start() called twice, or after stop(). */
export const AlreadyStartedError = createError('FST_MCP_ALREADY_STARTED', 'The server has already been started', 500)
/** Lifecycle: the listener could not be opened (port in use, permission denied, ...). */
export const StartFailedError = createError('FST_MCP_START_FAILED', 'Could not start the MCP server: %s', 500)
/**
 * Tasks: a task store refused a new task because a bound (`tasks.maxTasks`, `tasks.maxTasksPerPrincipal`)
 * is reached. The client gets JSON-RPC -32603 with this message; thrown by custom stores too.
 */
export const TaskLimitError = createError<'FST_MCP_TASK_LIMIT', 429, [string]>('FST_MCP_TASK_LIMIT', 'Task limit reached: %s', 429)
/**
 * Scale-out, at start: Redis could not be reached (or refused us). Names `host:port` and the cause,
 * never the URL or a password; `start()` / `ready()` reject with it.
 */
export const RedisUnreachableError = createError<'FST_MCP_REDIS_UNREACHABLE', 500, [string, string]>(
  'FST_MCP_REDIS_UNREACHABLE', 'Could not reach Redis at %s: %s', 500)
/**
 * Scale-out, while serving: Redis did not answer within `redisTimeoutMs`, or the bus outbox is
 * full (`outboxLimit`). A request that needs Redis gets 503 with Retry-After.
 */
export const ScaleUnavailableError = createError<'FST_MCP_SCALE_UNAVAILABLE', 503, [string]>(
  'FST_MCP_SCALE_UNAVAILABLE', 'Shared state unavailable, retry later: %s', 503)

// Routes as tools (docs/routes-as-tools.md): `ready()` rejects with these, each naming the route.
/** Two routes (or a route and a tool registered by hand) map to one tool name. */
export const RouteToolNameClashError = createError<'FST_MCP_ROUTE_TOOL_NAME_CLASH', 500, [string, string, string]>(
  'FST_MCP_ROUTE_TOOL_NAME_CLASH', '%s and %s both map to the tool name "%s": give one a schema.operationId or a config.mcp.name', 500)
/** A route's schemas cannot become a tool's: not JSON Schema, an unresolved `$ref`, no JSON body... */
export const RouteToolSchemaError = createError<'FST_MCP_ROUTE_TOOL_SCHEMA', 500, [string, string]>(
  'FST_MCP_ROUTE_TOOL_SCHEMA', 'Route %s cannot become a tool: %s', 500)
/** A route's `config.mcp` is neither a boolean nor a valid object. */
export const RouteToolConfigError = createError<'FST_MCP_ROUTE_TOOL_CONFIG', 500, [string, string]>(
  'FST_MCP_ROUTE_TOOL_CONFIG', 'Route %s: %s', 500)

// HTTP transport errors, one per row of the error contract in the README.
export const ParseError = createError('FST_MCP_PARSE_ERROR', 'Parse error: the body is not valid JSON', 400)
export const InvalidMessageError = createError('FST_MCP_INVALID_REQUEST', 'Invalid request: %s', 400)
export const MissingSessionError = createError('FST_MCP_MISSING_SESSION', 'Bad request: %s', 400)
export const UnknownSessionError = createError('FST_MCP_UNKNOWN_SESSION', 'Session not found', 404)
export const BodyTooLargeError = createError('FST_MCP_BODY_TOO_LARGE', 'Request body is larger than %d bytes', 413)
export const UnsupportedMediaTypeError = createError('FST_MCP_UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json', 415)
export const NotAcceptableError = createError('FST_MCP_NOT_ACCEPTABLE', 'Not acceptable: %s', 406)
export const ForbiddenOriginError = createError('FST_MCP_FORBIDDEN_ORIGIN', 'Forbidden: %s', 403)
/** Two Host lines, an invalid Host, or an absolute-form target that is no URL (RFC 9112 §3.2). */
export const InvalidHostError = createError('FST_MCP_INVALID_HOST', 'Bad request: %s', 400)
export const ForeignSessionError = createError('FST_MCP_FOREIGN_SESSION', 'Forbidden: the session belongs to another principal', 403)
export const AtCapacityError = createError('FST_MCP_AT_CAPACITY', 'Server at capacity, retry later', 503)
/** The client is over its `rateLimit` budget, or a definition's: 429 with Retry-After and rate-limit headers. */
export const RateLimitedError = createError<'FST_MCP_RATE_LIMITED', 429, [string]>('FST_MCP_RATE_LIMITED', '%s', 429)
/** The client holds `maxSessionsPerClient` sessions already. */
export const SessionQuotaError = createError('FST_MCP_SESSION_QUOTA', 'Too many sessions for this client, retry later', 429)
export const UnsupportedProtocolVersionError = createError('FST_MCP_UNSUPPORTED_PROTOCOL_VERSION', 'Bad request: unsupported MCP-Protocol-Version %s', 400)
export const MethodNotAllowedError = createError('FST_MCP_METHOD_NOT_ALLOWED', 'Method not allowed: %s', 405)
/** MCPServer only: no route at this path (the plugin leaves 404s to the app). Never quotes the URL. */
export const NotFoundError = createError('FST_MCP_NOT_FOUND', 'Not found', 404)
export const StreamConflictError = createError('FST_MCP_STREAM_CONFLICT', 'Conflict: %s', 409)

// Authentication. The guard answers these itself (status, WWW-Authenticate challenge, RFC 6750
// body); their messages are fixed sentences that never contain a token, a key or a secret.
/** Missing, malformed or invalid credential: 401. */
export const UnauthorizedError = createError<'FST_MCP_UNAUTHORIZED', 401, [string]>('FST_MCP_UNAUTHORIZED', '%s', 401)
/** A malformed Authorization header, or a token sent where tokens are refused (query string): 400. */
export const InvalidAuthRequestError = createError<'FST_MCP_INVALID_AUTH_REQUEST', 400, [string]>(
  'FST_MCP_INVALID_AUTH_REQUEST', '%s', 400)
/** A valid token without the scopes the server requires: 403. */
export const InsufficientScopeError = createError<'FST_MCP_INSUFFICIENT_SCOPE', 403, [string]>(
  'FST_MCP_INSUFFICIENT_SCOPE', 'The token lacks the required scope: %s', 403)
/** The key set or the authorization server could not be reached and nothing cached helps: 503. */
export const AuthUnavailableError = createError<'FST_MCP_AUTH_UNAVAILABLE', 503, [string]>(
  'FST_MCP_AUTH_UNAVAILABLE', '%s', 503)
/** Boot: the OAuth authorization server metadata could not be discovered. Names the issuer, never the secret. */
export const AuthDiscoveryFailedError = createError<'FST_MCP_AUTH_DISCOVERY_FAILED', 500, [string, string]>(
  'FST_MCP_AUTH_DISCOVERY_FAILED', 'Could not discover the OAuth authorization server of %s: %s', 500)
