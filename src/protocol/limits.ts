/**
 * Bounds on what one client can make a session hold (issue 10). The option
 * schemas take their defaults from here, and so does a core built without
 * options (tests, embedders), so each default is written once.
 */
export interface ProtocolLimits {
  /** Longest resource URI accepted from a client, in UTF-8 bytes. */
  readonly maxUriBytes: number
  /** Distinct resource URIs one session may be subscribed to. */
  readonly maxSubscriptions: number
  /** Client requests one session may have being handled at once. */
  readonly maxInflightRequests: number
}

export const DEFAULT_LIMITS: ProtocolLimits = Object.freeze({
  maxUriBytes: 8192,
  maxSubscriptions: 100,
  maxInflightRequests: 1000
})

export function resolveLimits (options: Partial<ProtocolLimits>): ProtocolLimits {
  return Object.freeze({
    maxUriBytes: options.maxUriBytes ?? DEFAULT_LIMITS.maxUriBytes,
    maxSubscriptions: options.maxSubscriptions ?? DEFAULT_LIMITS.maxSubscriptions,
    maxInflightRequests: options.maxInflightRequests ?? DEFAULT_LIMITS.maxInflightRequests
  })
}

/** Whether `text` takes more than `maxBytes` bytes in UTF-8, without encoding it when the answer is plain. */
export function exceedsBytes (text: string, maxBytes: number): boolean {
  // A UTF-16 code unit takes 1 to 3 UTF-8 bytes (a surrogate pair, two units, takes 4).
  if (text.length > maxBytes) return true
  if (text.length * 3 <= maxBytes) return false
  return Buffer.byteLength(text, 'utf8') > maxBytes
}
