import { McpError } from '../../jsonrpc/errors.js'

/**
 * Error codes MCP 2026-07-28 defines in its reserved range (-32020..-32099).
 * Transports give each its HTTP status (400); the codes mean the same on stdio.
 */
export const ModernErrorCode = {
  /** The HTTP headers do not match the body, or a required header is missing or malformed. */
  HeaderMismatch: -32020,
  /** Handling the request needs a client capability the request did not declare. */
  MissingRequiredClientCapability: -32021,
  /** The requested protocol version is not one this server serves. */
  UnsupportedProtocolVersion: -32022
} as const

export function headerMismatch (reason: string): McpError {
  return new McpError(ModernErrorCode.HeaderMismatch, `Header mismatch: ${reason}`)
}

/** -32022; `data.supported` lists every version served (legacy ones included), `data.requested` echoes the claim. */
export function unsupportedVersion (requested: unknown, supported: readonly string[]): McpError {
  // Echoed as a string, bounded: the claim is client input.
  const echoed = typeof requested === 'string' ? requested.slice(0, 64) : String(requested).slice(0, 64)
  return new McpError(ModernErrorCode.UnsupportedProtocolVersion, 'Unsupported protocol version', { supported: [...supported], requested: echoed })
}

/**
 * -32021 MissingRequiredClientCapability: the one error for "this request
 * needs `sampling` (or `elicitation`, `roots`...) and its `_meta` did not
 * declare it". `data.requiredCapabilities` is a ClientCapabilities object
 * (`{ sampling: {} }`), as the schema defines it.
 */
export class MissingCapabilityError extends McpError {
  readonly requiredCapabilities: Record<string, Record<string, unknown>>
  constructor (...capabilities: string[]) {
    const required = Object.fromEntries(capabilities.map((name) => [name, {}]))
    super(ModernErrorCode.MissingRequiredClientCapability, `Missing required client capability: ${capabilities.join(', ')}`, { requiredCapabilities: required })
    this.name = 'MissingCapabilityError'
    this.requiredCapabilities = required
  }
}

/** Throws {@link MissingCapabilityError} unless `declared` (a request's clientCapabilities) has every one of `capabilities`. */
export function requireClientCapabilities (declared: Record<string, unknown>, ...capabilities: string[]): void {
  const missing = capabilities.filter((name) => declared[name] === undefined || declared[name] === null)
  if (missing.length > 0) throw new MissingCapabilityError(...missing)
}
