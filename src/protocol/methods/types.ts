import type { RequestAccess } from '../authz/access.js'
import type { Caller } from '../caller.js'
import type { ListenHub } from '../listen/hub.js'
import type { Registry } from '../registry.js'
import type { RequestContext } from '../request-context.js'
import type { Session } from '../session.js'
import type { SubscriptionBytes } from '../subscription-bytes.js'
import type { TaskManager } from '../tasks/manager.js'
import { ErrorCode, McpError } from '../../jsonrpc/errors.js'
import { exceedsBytes, type ProtocolLimits } from '../limits.js'
import type { RequestStateCodec } from '../modern/request-state.js'
import type { ModernSettings } from '../modern/settings.js'
import type { ErrorLogger } from '../../util/logger.js'
import { isRecord } from '../../util/is-record.js'

export interface ServerIdentity {
  name: string
  version: string
  instructions?: string | undefined
  pageSize: number
  /** The 2026-07-28 leg: generations served, versions, serverInfo, caching. */
  modern: ModernSettings
}

/** What each method handler gets: the request's params and its surroundings. */
export interface MethodEnv {
  registry: Registry
  session: Session
  ctx: RequestContext
  /** Who sent the request (principal, client key, credential expiry, size): see `Caller`. */
  caller: Caller
  server: ServerIdentity
  logger: ErrorLogger
  limits: ProtocolLimits
  /** Task-augmented calls and the `tasks/*` methods. */
  tasks: TaskManager
  /** Signs and verifies the `requestState` of 2026-07-28 multi-round-trip requests. */
  requestState: RequestStateCodec
  /** The open `subscriptions/listen` streams. */
  listen: ListenHub
  /** Handlers of the methods extensions serve (Skills), by name; their rows are in the method table. */
  extensionMethods: ReadonlyMap<string, MethodHandler>
  /** The access rules as this request's caller meets them: what it may use, what its lists show. */
  access: RequestAccess
  /** What resource subscriptions hold, per client and overall. */
  subscriptionBytes: SubscriptionBytes
}

/**
 * A method's result may carry messages to send right after its answer, on the
 * same session and as related to the same request (a non-enumerable property
 * under this key, so that it never reaches the wire): how a listen stream on
 * stdio is torn down after its result.
 */
export const kAfterAnswer = Symbol('fastify-mcp-server.afterAnswer')

export type MethodHandler = (params: Record<string, unknown>, env: MethodEnv) => Promise<Record<string, unknown>> | Record<string, unknown>

export function requireString (params: Record<string, unknown>, key: string): string {
  const value = params[key]
  if (typeof value !== 'string') throw new McpError(ErrorCode.InvalidParams, `params.${key} must be a string`)
  return value
}

/**
 * A URI from the client, refused when longer than `maxUriBytes` before anything
 * looks at it (template matching, subscription sets, logs).
 */
export function requireUri (params: Record<string, unknown>, key: string, limits: ProtocolLimits): string {
  const uri = requireString(params, key)
  if (exceedsBytes(uri, limits.maxUriBytes)) {
    throw new McpError(ErrorCode.InvalidParams, `params.${key} is longer than maxUriBytes (${limits.maxUriBytes} bytes)`, { maxUriBytes: limits.maxUriBytes, limit: 'maxUriBytes', max: limits.maxUriBytes })
  }
  return uri
}

export function optionalObject (params: Record<string, unknown>, key: string): Record<string, unknown> | undefined {
  const value = params[key]
  if (value === undefined) return undefined
  if (!isRecord(value)) throw new McpError(ErrorCode.InvalidParams, `params.${key} must be an object`)
  return value
}

export function errorMessage (error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
