import { type JsonRpcRequest } from '../../jsonrpc/messages.js'
import { ErrorCode, McpError } from '../../jsonrpc/errors.js'
import { unsupportedVersion } from './errors.js'
import { readModernMeta, type ModernMeta } from './meta.js'
import { MODERN_METHODS } from '../methods/table.js'
import type { ModernSettings } from './settings.js'

/**
 * The validation ladder of a 2026-07-28 request, rung by rung, each a
 * JSON-RPC error carrying the request's id:
 *
 * 1. `_meta` malformed or incomplete: -32602 ({@link readModernMeta}).
 * 2. (HTTP only) headers that disagree with the body: -32020, checked by the
 *    transport between rungs 1 and 3 (`transports/modern-headers.ts`): a
 *    header naming another version than the body is a mismatch, not an
 *    unsupported version.
 * 3. a version this server does not serve: -32022 with `supported`.
 * 4. a method the revision does not have (or removed): -32601.
 *
 * -32021 (a capability the request did not declare) comes later, from the
 * handler that needs it (`MissingCapabilityError`).
 */
/** Rungs 3 and 4: a version this server serves, a method the revision has. */
export function checkVersionAndMethod (request: JsonRpcRequest, meta: ModernMeta, settings: ModernSettings): void {
  if (!settings.modernVersions.includes(meta.protocolVersion)) throw unsupportedVersion(meta.protocolVersion, settings.supportedVersions)
  if (!MODERN_METHODS.has(request.method)) {
    throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${request.method.slice(0, 128)}`)
  }
}

/** The whole ladder for transports without headers (stdio): the request's meta, or a thrown McpError. */
export function readAndCheckModernRequest (request: JsonRpcRequest, settings: ModernSettings): ModernMeta {
  const meta = readModernMeta(request.params)
  checkVersionAndMethod(request, meta, settings)
  return meta
}
