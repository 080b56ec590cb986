// The one definition of "loopback" behind every check that needs it: the DNS-rebinding guard (is
// this listener on loopback, is this Host a loopback name), the boot rule and the runtime rule for
// key and issuer URLs (https, or plain http on loopback for local development).

/** A URL hostname or Host header name on loopback: `localhost`, `[::1]` or `127.x.y.z`. Lower-case input. */
export function isLoopbackHostname (hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
}

/** A socket address on loopback: IPv4 127/8, `::1`, or IPv4 loopback mapped into IPv6. */
export function isLoopbackAddress (address: string | undefined): boolean {
  if (address === undefined) return false
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.')
}

/** An absolute https URL, or http on a loopback host (keys fetched over plain http elsewhere can be swapped in transit). */
export function isSecureUrl (value: string): boolean {
  if (!URL.canParse(value)) return false
  const url = new URL(value)
  return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHostname(url.hostname))
}
