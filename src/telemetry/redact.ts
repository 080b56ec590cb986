/**
 * A resource URI as recorded on spans: without userinfo (`scheme://user:password@host`) and
 * without query and fragment, where tokens and keys travel, and at most 512 characters. Resource
 * URIs come from clients; telemetry backends keep them for weeks.
 */
export function redactUri (uri: string): string {
  let value = uri
  const query = value.search(/[?#]/)
  if (query !== -1) value = value.slice(0, query)
  const scheme = value.indexOf('://')
  if (scheme !== -1) {
    const authorityStart = scheme + 3
    const slash = value.indexOf('/', authorityStart)
    const authorityEnd = slash === -1 ? value.length : slash
    const at = value.lastIndexOf('@', authorityEnd)
    if (at >= authorityStart) value = value.slice(0, authorityStart) + value.slice(at + 1)
  }
  return value.length > 512 ? value.slice(0, 512) : value
}
