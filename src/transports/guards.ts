import type { onRequestHookHandler } from 'fastify'
import { ForbiddenOriginError } from '../errors.js'

/** Host names always accepted on a loopback listener (any port). */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]'])

export interface OriginGuardOptions {
  /** Cross-origin callers allowed by `cors.allowOrigins` (`*` = any); undefined when CORS is off. */
  allowOrigins: readonly string[] | undefined
  /** Extra Host values accepted on a loopback listener, with or without a port. */
  allowedHosts: readonly string[] | undefined
}

/** True for an IPv4 loopback address, `::1`, or IPv4 loopback mapped into IPv6. */
export function isLoopbackAddress (address: string | undefined): boolean {
  if (address === undefined) return false
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.')
}

/** `example.com:8080` -> `example.com`, `[::1]:80` -> `[::1]`; lower-cased. */
export function hostnameOf (host: string): string {
  const lower = host.toLowerCase()
  if (lower.startsWith('[')) {
    const end = lower.indexOf(']')
    return end === -1 ? lower : lower.slice(0, end + 1)
  }
  const colon = lower.indexOf(':')
  return colon === -1 ? lower : lower.slice(0, colon)
}

/** Same origin: the Origin's host (name and port) is the Host the request was sent to. */
function isSameOrigin (origin: string, host: string | undefined): boolean {
  if (host === undefined) return false
  try {
    const url = new URL(origin)
    // Normalize the Host the same way URL normalizes the Origin (default ports, case).
    return url.host === new URL(`${url.protocol}//${host}`).host
  } catch {
    return false
  }
}

/**
 * DNS-rebinding protection, run first on every MCP route.
 *
 * - On a loopback listener, a Host other than the loopback names (or
 *   `allowedHosts`) means a page on some other name resolved to us: refused.
 *   The plugin does not know the bind address, so it looks at the socket's
 *   local address instead.
 * - A present `Origin` must be the same origin or one of `cors.allowOrigins`:
 *   without CORS a browser page from elsewhere cannot be told apart from a
 *   rebinding attack, so it is refused (403) rather than merely left without
 *   CORS headers.
 */
export function createOriginGuard (options: OriginGuardOptions): onRequestHookHandler {
  const extraHosts = new Set((options.allowedHosts ?? []).map((host) => host.toLowerCase()))
  const anyOrigin = options.allowOrigins?.includes('*') ?? false
  const origins = new Set(options.allowOrigins ?? [])

  const hostAllowed = (host: string | undefined): boolean => {
    if (host === undefined) return false
    const name = hostnameOf(host)
    return LOOPBACK_HOSTS.has(name) || extraHosts.has(name) || extraHosts.has(host.toLowerCase())
  }

  return function originGuard (request, _reply, done) {
    const host = request.headers.host
    if (isLoopbackAddress(request.socket.localAddress) && !hostAllowed(host)) {
      done(new ForbiddenOriginError('the Host header is not allowed'))
      return
    }
    const origin = request.headers.origin
    if (origin !== undefined && !anyOrigin && !origins.has(origin) && !isSameOrigin(origin, host)) {
      done(new ForbiddenOriginError('the Origin is not allowed'))
      return
    }
    done()
  }
}
