/**
 * Names from the OpenTelemetry semantic conventions for MCP (development status; the
 * open-telemetry/semantic-conventions-genai repository, `docs/gen-ai/mcp.md` and `model/mcp/`),
 * in one place so that a rename upstream is one edit here.
 */
export const ATTR_MCP_METHOD_NAME = 'mcp.method.name'
export const ATTR_MCP_SESSION_ID = 'mcp.session.id'
export const ATTR_MCP_PROTOCOL_VERSION = 'mcp.protocol.version'
export const ATTR_MCP_RESOURCE_URI = 'mcp.resource.uri'
export const ATTR_JSONRPC_REQUEST_ID = 'jsonrpc.request.id'
export const ATTR_RPC_RESPONSE_STATUS_CODE = 'rpc.response.status_code'
export const ATTR_GEN_AI_TOOL_NAME = 'gen_ai.tool.name'
export const ATTR_GEN_AI_PROMPT_NAME = 'gen_ai.prompt.name'
export const ATTR_GEN_AI_OPERATION_NAME = 'gen_ai.operation.name'
export const ATTR_ERROR_TYPE = 'error.type'
export const ATTR_NETWORK_TRANSPORT = 'network.transport'
export const ATTR_NETWORK_PROTOCOL_NAME = 'network.protocol.name'
export const ATTR_NETWORK_PROTOCOL_VERSION = 'network.protocol.version'
export const ATTR_CLIENT_ADDRESS = 'client.address'
export const ATTR_CLIENT_PORT = 'client.port'

export const METRIC_SERVER_OPERATION_DURATION = 'mcp.server.operation.duration'
export const METRIC_SERVER_SESSION_DURATION = 'mcp.server.session.duration'

/** The conventions' bucket advice for both MCP duration histograms, in seconds. */
export const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300]

/** `error.type` of a tool result with `isError: true` (the conventions' value). */
export const TOOL_ERROR = 'tool_error'
/** `error.type` of a request the client cancelled, or whose session closed, before its answer. */
export const CANCELLED = 'cancelled'
/** `error.type` of a server-to-client request that got no answer in time. */
export const TIMEOUT = 'timeout'
/** `error.type` fallback of the conventions. */
export const OTHER = '_OTHER'

// Operator metrics beyond the conventions. Not under `mcp.`: that namespace belongs to the
// conventions, and a name they might define later must not clash with ours.
export const METRIC_SESSIONS_OPEN = 'fastify_mcp.server.sessions.open'
export const METRIC_STREAMS_OPEN = 'fastify_mcp.server.streams.open'
export const METRIC_SLOW_CONSUMERS = 'fastify_mcp.server.slow_consumer.cutoffs'
export const METRIC_AUTH_FAILURES = 'fastify_mcp.server.auth.failures'
export const METRIC_LIMIT_REFUSALS = 'fastify_mcp.server.limit.refusals'
export const ATTR_AUTH_METHOD = 'fastify_mcp.auth.method'
export const ATTR_AUTH_REASON = 'fastify_mcp.auth.reason'
export const ATTR_LIMIT = 'fastify_mcp.limit'
export const ATTR_STREAM_KIND = 'fastify_mcp.stream.kind'

/** Instrumentation scope of every tracer and meter of this package. */
export const SCOPE_NAME = 'fastify-mcp-server'
