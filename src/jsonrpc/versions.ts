/** Protocol revisions this server speaks, newest first. */
export const PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const
export type ProtocolVersion = typeof PROTOCOL_VERSIONS[number]
export const LATEST_PROTOCOL_VERSION: ProtocolVersion = PROTOCOL_VERSIONS[0]

export function isSupportedVersion (version: unknown): version is ProtocolVersion {
  return typeof version === 'string' && (PROTOCOL_VERSIONS as readonly string[]).includes(version)
}

/** The client's version when we speak it, else our latest (the client then decides whether to go on). */
export function negotiateVersion (requested: unknown): ProtocolVersion {
  return isSupportedVersion(requested) ? requested : LATEST_PROTOCOL_VERSION
}

/** Revision that introduced each feature whose fields older clients must not see. */
const INTRODUCED = {
  toolAnnotations: '2025-03-26',
  progressMessage: '2025-03-26',
  structuredContent: '2025-06-18',
  titles: '2025-06-18',
  icons: '2025-11-25',
  /** structuredContent of any JSON type, and outputSchema of any schema (SEP-2106). */
  anyStructuredContent: '2026-07-28'
} as const

export function supports (version: string, feature: keyof typeof INTRODUCED): boolean {
  // Revisions are ISO dates, so string order is release order.
  return version >= INTRODUCED[feature]
}

/** Drops fields an older client does not know from a tool, resource or prompt descriptor. */
export function shapeDescriptor (wire: Record<string, unknown>, version: string): Record<string, unknown> {
  if (supports(version, 'anyStructuredContent')) return wire
  // Before 2026-07-28 an outputSchema describes an object; another one is left out (the results go as text).
  const foreignOutput = wire.outputSchema !== undefined && (wire.outputSchema as { type?: unknown }).type !== 'object'
  if (supports(version, 'icons') && !foreignOutput) return wire
  const shaped = { ...wire }
  if (foreignOutput) delete shaped.outputSchema
  if (supports(version, 'icons')) return shaped
  delete shaped.icons
  if (!supports(version, 'titles')) {
    delete shaped.title
    delete shaped.outputSchema
  }
  if (!supports(version, 'toolAnnotations')) delete shaped.annotations
  return shaped
}
