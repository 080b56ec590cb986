import type { FastifyRequest } from 'fastify'
import type { JsonRpcRequest } from '../../jsonrpc/messages.js'
import { headerMismatch } from '../../protocol/modern/errors.js'
import type { MirroredParam } from '../../protocol/modern/mcp-header.js'
import type { ModernMeta } from '../../protocol/modern/meta.js'
import type { Registry } from '../../protocol/registry.js'
import { MCP_NAME_FROM } from '../../protocol/methods/table.js'

// The second rung of the 2026-07-28 ladder, HTTP only (SEP-2243,
// `basic/transports/streamable-http.mdx`, Request Metadata): headers that
// mirror the body must match it, so that a balancer or gateway routing on a
// header never sees another request than the server executes. Every failure
// is -32020 HeaderMismatch (HTTP 400).

/** Where `Mcp-Name` comes from, per method (the method table's `mcpNameFrom`). */
const NAME_SOURCE = MCP_NAME_FROM

const BASE64_SENTINEL = /^=\?base64\?(.*)\?=$/s
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/
const utf8 = new TextDecoder('utf-8', { fatal: true })

/** A header's value with the optional whitespace HTTP allows around it; undefined when absent. */
function headerOf (request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name]
  /* c8 ignore next: Node joins repeated request headers into one string; the type still allows arrays */
  if (Array.isArray(value)) return value.join(', ').trim()
  return value?.trim()
}

/**
 * Decodes a value that may use the `=?base64?…?=` sentinel; anything without
 * the exact (lowercase) sentinel is literal. A sentinel around invalid base64
 * or invalid UTF-8 is a malformed header, not a literal.
 */
export function decodeHeaderValue (value: string, header: string): string {
  const match = BASE64_SENTINEL.exec(value)
  if (match === null) return value
  const encoded = match[1] ?? ''
  if (!BASE64.test(encoded)) throw headerMismatch(`${header} is not valid base64`)
  try {
    return utf8.decode(Buffer.from(encoded, 'base64'))
  } catch {
    throw headerMismatch(`${header} does not decode to UTF-8 text`)
  }
}

function requireHeader (request: FastifyRequest, name: string, display: string): string {
  const value = headerOf(request, name)
  if (value === undefined || value === '') throw headerMismatch(`the ${display} header is required`)
  return value
}

/**
 * Checks `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and, for a tool
 * whose input schema marks parameters with `x-mcp-header`, the
 * `Mcp-Param-{Name}` headers, against the body. Header names are matched
 * case-insensitively (Node lower-cases them), values case-sensitively. Error
 * messages name the header, never echo its value (client bytes stay out of
 * answers and logs).
 */
export function checkModernHeaders (request: FastifyRequest, message: JsonRpcRequest, meta: ModernMeta, registry: Registry): void {
  if (requireHeader(request, 'mcp-protocol-version', 'MCP-Protocol-Version') !== meta.protocolVersion) {
    throw headerMismatch('the MCP-Protocol-Version header does not match _meta["io.modelcontextprotocol/protocolVersion"]')
  }
  if (requireHeader(request, 'mcp-method', 'Mcp-Method') !== message.method) {
    throw headerMismatch('the Mcp-Method header does not match the request method')
  }
  // Own keys only: the method is the client's string (`constructor` must not find Object's).
  const source = Object.hasOwn(NAME_SOURCE, message.method) ? NAME_SOURCE[message.method] : undefined
  if (source === undefined) return
  const bodyName = message.params?.[source]
  // A body without the name fails on its own (-32602); there is nothing to compare.
  if (typeof bodyName !== 'string') return
  if (decodeHeaderValue(requireHeader(request, 'mcp-name', 'Mcp-Name'), 'Mcp-Name') !== bodyName) {
    throw headerMismatch(`the Mcp-Name header does not match params.${source}`)
  }
  if (message.method === 'tools/call') {
    const tool = registry.tools.get(bodyName)
    if (tool !== undefined && tool.mirrored.length > 0) checkParamHeaders(request, tool.mirrored, message.params?.arguments)
  }
}

function valueAt (args: unknown, path: readonly string[]): unknown {
  let node = args
  for (const key of path) {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return undefined
    // Own keys only: an argument `toString` the client left out must not be Object.prototype's.
    node = Object.hasOwn(node, key) ? (node as Record<string, unknown>)[key] : undefined
  }
  return node
}

/** The body value and the (decoded) header value agree: strings exactly, integers numerically, booleans as `true`/`false`. */
function sameValue (body: unknown, header: string): boolean {
  if (typeof body === 'string') return body === header
  if (typeof body === 'boolean') return header === String(body)
  if (typeof body === 'number') return header.trim() !== '' && Number(header) === body
  return false
}

function checkParamHeaders (request: FastifyRequest, mirrored: readonly MirroredParam[], args: unknown): void {
  for (const { path, header } of mirrored) {
    const display = `Mcp-Param-${header}`
    const raw = headerOf(request, display.toLowerCase())
    const body = valueAt(args, path)
    // No value (or null) in the body: the client omits the header and the server expects none.
    if (body === undefined || body === null) continue
    if (raw === undefined) throw headerMismatch(`the ${display} header is required: arguments.${path.join('.')} is set`)
    if (!sameValue(body, decodeHeaderValue(raw, display))) throw headerMismatch(`the ${display} header does not match arguments.${path.join('.')}`)
  }
}
