/** `value` as a URL, or null when it is not an absolute URL. URL.parse is missing from early Node 20 releases. */
export function parseUrl (value: string): URL | null {
  return URL.canParse(value) ? new URL(value) : null
}
