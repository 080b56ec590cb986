import { ErrorCode, McpError } from '../../jsonrpc/errors.js'
import { LOG_LEVELS, type LogLevel } from '../session.js'
import { isRecord } from '../../util/is-record.js'

/** The stateless revision: every request carries its version and capabilities in `params._meta`. */
export const MODERN_VERSION = '2026-07-28'
/** Modern revisions this server speaks, newest first. */
export const MODERN_VERSIONS: readonly string[] = [MODERN_VERSION]

/** Reserved `_meta` keys of MCP 2026-07-28 (`basic/index.mdx`, General fields). */
export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion'
export const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo'
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities'
export const META_LOG_LEVEL = 'io.modelcontextprotocol/logLevel'
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo'

export type { ProtocolGeneration } from '../session.js'

/** What a modern request says about its client, read from its `_meta`. */
export interface ModernMeta {
  protocolVersion: string
  clientCapabilities: Record<string, unknown>
  clientInfo: Record<string, unknown> | undefined
  /** Undefined: the client wants no log notifications for this request. */
  logLevel: LogLevel | undefined
}

/**
 * True when the request claims a protocol version in `params._meta`: the mark
 * of a modern client. The claim decides the generation even when its value is
 * malformed (the modern ladder then answers -32602 or -32022).
 */
export function hasModernClaim (params: Record<string, unknown> | undefined): boolean {
  const meta = params?._meta
  return isRecord(meta) && Object.hasOwn(meta, META_PROTOCOL_VERSION)
}

/** The `_meta` keys every modern request carries, in the order a refusal names them. */
const REQUIRED_META = [META_PROTOCOL_VERSION, META_CLIENT_CAPABILITIES] as const

function invalid (reason: string): McpError {
  return new McpError(ErrorCode.InvalidParams, `Invalid params: ${reason}`)
}

/**
 * The first rung of the modern ladder: `_meta` must carry a protocol version
 * and client capabilities (both REQUIRED), and may carry client info and a
 * log level; anything malformed is -32602.
 */
export function readModernMeta (params: Record<string, unknown> | undefined): ModernMeta {
  const meta = params?._meta
  if (!isRecord(meta)) throw invalid('params._meta with io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities is required')
  const protocolVersion = meta[META_PROTOCOL_VERSION]
  const clientCapabilities = meta[META_CLIENT_CAPABILITIES]
  if (protocolVersion === undefined || clientCapabilities === undefined) {
    const missing = REQUIRED_META.filter((key) => meta[key] === undefined)
    throw invalid(`missing _meta keys: ${missing.join(', ')}`)
  }
  if (typeof protocolVersion !== 'string' || protocolVersion === '') throw invalid(`_meta["${META_PROTOCOL_VERSION}"] must be a non-empty string`)
  if (!isRecord(clientCapabilities)) throw invalid(`_meta["${META_CLIENT_CAPABILITIES}"] must be an object`)
  const clientInfo = meta[META_CLIENT_INFO]
  if (clientInfo !== undefined && !isRecord(clientInfo)) throw invalid(`_meta["${META_CLIENT_INFO}"] must be an object`)
  const logLevel = meta[META_LOG_LEVEL]
  if (logLevel !== undefined && !(LOG_LEVELS as readonly unknown[]).includes(logLevel)) {
    throw invalid(`_meta["${META_LOG_LEVEL}"] must be one of ${LOG_LEVELS.join(', ')}`)
  }
  return { protocolVersion, clientCapabilities, clientInfo, logLevel: logLevel as LogLevel | undefined }
}
