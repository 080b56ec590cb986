import { readMirroredParams, type MirroredParam } from '../protocol/modern/mcp-header.js'
import { MCP_NAME_FROM } from '../protocol/methods/table.js'
import {
  META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL, META_PROTOCOL_VERSION, MODERN_VERSION
} from '../protocol/modern/meta.js'
import type { LogLevel } from '../protocol/session.js'
import { isRecord } from '../util/is-record.js'

/**
 * What a 2026-07-28 client puts on each request: the `_meta` claims (version, client info and
 * capabilities, log level) and, over HTTP, the headers that mirror the body (SEP-2243), which the
 * server checks rung by rung (`transports/streamable/modern-headers.ts`).
 */

export interface ClientIdentity {
  clientInfo: { name: string, version: string }
  capabilities: Record<string, unknown>
  logLevel: LogLevel | undefined
}

/** `params` with the request's `_meta` claims merged over any `_meta` the caller gave. */
export function withClaims (params: Record<string, unknown>, identity: ClientIdentity, extra: Record<string, unknown>): Record<string, unknown> {
  const own = isRecord(params._meta) ? params._meta : {}
  const meta: Record<string, unknown> = {
    ...own,
    ...extra,
    [META_PROTOCOL_VERSION]: MODERN_VERSION,
    [META_CLIENT_INFO]: identity.clientInfo,
    [META_CLIENT_CAPABILITIES]: identity.capabilities
  }
  if (identity.logLevel !== undefined) meta[META_LOG_LEVEL] = identity.logLevel
  return { ...params, _meta: meta }
}

/** Visible ASCII with no whitespace at either end goes as is; anything else in the `=?base64?…?=` form. */
const PLAIN = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/

export function headerValue (value: string): string {
  if (PLAIN.test(value) && !value.startsWith('=?base64?')) return value
  return `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`
}

/** The headers that mirror a 2026-07-28 request's body; `mirrored` are the called tool's `x-mcp-header` parameters. */
export function modernHeaders (method: string, params: Record<string, unknown>, mirrored: readonly MirroredParam[] = []): Record<string, string> {
  const headers: Record<string, string> = { 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': method }
  const source = Object.hasOwn(MCP_NAME_FROM, method) ? MCP_NAME_FROM[method] : undefined
  const name = source === undefined ? undefined : params[source]
  if (typeof name === 'string') headers['mcp-name'] = headerValue(name)
  for (const { path, header } of mirrored) {
    let value: unknown = params.arguments
    for (const key of path) value = isRecord(value) && Object.hasOwn(value, key) ? value[key] : undefined
    if (typeof value === 'string') headers[`mcp-param-${header.toLowerCase()}`] = headerValue(value)
    else if (typeof value === 'number' || typeof value === 'boolean') headers[`mcp-param-${header.toLowerCase()}`] = String(value)
  }
  return headers
}

/** A tool's `x-mcp-header` parameters, from its listed input schema (none when it has a problem: the server refused it). */
export function mirroredParamsOf (inputSchema: unknown): MirroredParam[] {
  const read = readMirroredParams(inputSchema)
  return 'params' in read ? read.params : []
}
