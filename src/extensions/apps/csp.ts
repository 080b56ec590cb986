import { InvalidDefinitionError } from '../../errors.js'
import type { AppCsp } from '../../protocol/definitions.js'
import { isRecord } from '../../util/is-record.js'

const CSP_LISTS = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'] as const
// The schemes whose origins a URL parser serializes: what CSP source lists hold in practice.
const ORIGIN_SCHEMES = new Set(['http:', 'https:', 'ws:', 'wss:'])
const WILDCARD = '*.'

/**
 * Whether `entry` is an origin as hosts put it in a Content-Security-Policy: exactly
 * `scheme://host[:port]`, lower case, no path, query, fragment or credentials; the host may start
 * with `*.` for every subdomain of the rest (ext-apps `apps.mdx`, `McpUiResourceCsp`).
 */
export function isCspOrigin (entry: string): boolean {
  const at = entry.indexOf('://')
  if (at < 0) return false
  const wildcard = entry.startsWith(WILDCARD, at + 3)
  // A wildcard host is checked as one concrete subdomain of it.
  const concrete = wildcard ? `${entry.slice(0, at + 3)}x.${entry.slice(at + 3 + WILDCARD.length)}` : entry
  // URL parsers take `*` as a host character; CSP gives it a meaning only as the first label.
  if (concrete.includes('*')) return false
  let url: URL
  try {
    url = new URL(concrete)
  } catch {
    return false
  }
  return ORIGIN_SCHEMES.has(url.protocol) && url.origin === concrete
}

/** The `csp` of an app resource, checked entry by entry; only the lists given are kept. */
export function checkCsp (csp: unknown, uri: string): AppCsp {
  if (!isRecord(csp)) throw invalid(uri, 'csp must be an object such as { connectDomains: [\'https://api.example.com\'] }')
  const checked: AppCsp = {}
  for (const key of Object.keys(csp)) {
    if (!(CSP_LISTS as readonly string[]).includes(key)) throw invalid(uri, `csp has no list ${JSON.stringify(key)}; it takes ${CSP_LISTS.join(', ')}`)
  }
  for (const key of CSP_LISTS) {
    const list = csp[key]
    if (list === undefined) continue
    if (!Array.isArray(list)) throw invalid(uri, `csp.${key} must be an array of origins`)
    list.forEach((entry: unknown, index) => {
      if (typeof entry !== 'string' || !isCspOrigin(entry)) {
        throw invalid(uri, `csp.${key}[${index}] must be an origin such as https://api.example.com or https://*.example.com; got ${JSON.stringify(entry)}`)
      }
    })
    checked[key] = [...list as string[]]
  }
  return checked
}

export function invalid (uri: string, problem: string): Error {
  return new InvalidDefinitionError('app resource', `${uri}: ${problem}`)
}
