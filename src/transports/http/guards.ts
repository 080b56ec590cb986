import type { FastifyRequest, onRequestHookHandler } from 'fastify'
import { ForbiddenOriginError, InvalidHostError } from '../../errors.js'
import { headerLines } from '../../util/header-lines.js'
import { isLoopbackAddress, isLoopbackHostname } from '../../util/loopback.js'

// RFC 9112 §3.2 / RFC 3986 §3.2.2: `uri-host [ ":" port ]`, kept to the names and IP literals
// real hosts use. No userinfo (`localhost:80@evil.example` read as `localhost` would pass for
// loopback), no spaces, no path.
const VALID_HOST = /^(?:[A-Za-z0-9._~-]+|\[[0-9A-Fa-f:.]+\])(?::\d{0,5})?$/

export interface OriginGuardOptions {
  /** Cross-origin callers allowed by `cors.allowOrigins` (`*` = any); undefined when CORS is off. */
  allowOrigins: readonly string[] | undefined
  /** Host values accepted (besides the loopback names on a loopback connection), with or without a port. */
  allowedHosts: readonly string[] | undefined
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

/**
 * The host a request was sent to (RFC 9112 §3.2): undefined when it names none (HTTP/1.0).
 * Throws 400 for two Host lines or an invalid value. For an absolute-form target
 * (`POST http://evil.example/mcp`), the target's authority is the host and the Host header is
 * ignored (RFC 9112 §3.2.2), as a proxy in front would do: checking the header alone would let
 * such a request through under a harmless Host.
 */
export function requestHost (request: FastifyRequest): string | undefined {
  const lines = headerLines(request, 'host')
  if (lines.length > 1) throw new InvalidHostError('more than one Host header')
  const target = request.raw.url ?? '/'
  if (!target.startsWith('/')) {
    // URL keeps the authority's userinfo apart (and refuses what is not a URL): both are 400.
    const url = URL.canParse(target) ? new URL(target) : undefined
    if (url === undefined || url.host === '' || url.username !== '' || url.password !== '') {
      throw new InvalidHostError('the request target is not a valid absolute URL')
    }
    return url.host
  }
  const host = lines[0]
  if (host === undefined) return undefined
  if (!VALID_HOST.test(host)) throw new InvalidHostError('the Host header is invalid')
  return host
}

/** Same origin: scheme, host and port of the Origin are those the request was sent to. */
function isSameOrigin (origin: string, host: string | undefined, protocol: string): boolean {
  if (host === undefined || !URL.canParse(origin)) return false
  const url = new URL(origin)
  // The Host is normalized the way URL normalizes the Origin (default ports, case). An https page
  // calling the plain-http server on the same name and port is another origin.
  return url.protocol === `${protocol}:` && URL.canParse(`${protocol}://${host}`) && url.host === new URL(`${protocol}://${host}`).host
}

/**
 * DNS-rebinding protection for every route a browser could be steered to (the MCP routes, the
 * RFC 9728 metadata): the Host must be one this server answers to. Two Host lines or an invalid
 * one are 400 (RFC 9112 §3.2). With `allowedHosts` set, only those (and the loopback names on
 * a loopback connection) are served, whatever the bind address. Without it, a loopback listener
 * serves the loopback names only; another listener serves any Host (the server warns at boot).
 * The plugin does not know the bind address, so it looks at the socket's local address.
 */
export function createHostGuard (allowedHosts: readonly string[] | undefined): (request: FastifyRequest) => string | undefined {
  const listed = allowedHosts === undefined ? undefined : new Set(allowedHosts.map((host) => host.toLowerCase()))
  return function checkHost (request) {
    const host = requestHost(request)
    const loopback = isLoopbackAddress(request.socket.localAddress)
    if (listed === undefined && !loopback) return host
    const allowed = host !== undefined && (
      (loopback && isLoopbackHostname(hostnameOf(host))) ||
      (listed !== undefined && (listed.has(hostnameOf(host)) || listed.has(host.toLowerCase()))))
    if (!allowed) throw new ForbiddenOriginError('the Host header is not allowed')
    return host
  }
}

/** The Host check alone, as an onRequest hook (the RFC 9728 metadata routes). */
export function createHostHook (allowedHosts: readonly string[] | undefined): onRequestHookHandler {
  const checkHost = createHostGuard(allowedHosts)
  return function hostGuard (request, _reply, done) {
    try {
      checkHost(request)
    } catch (error) {
      done(error as Error)
      return
    }
    done()
  }
}

/**
 * The guard run first on every MCP route: the Host check above, then the Origin. A present
 * `Origin` must be the same origin or one of `cors.allowOrigins`: without CORS a browser page
 * from elsewhere cannot be told apart from a rebinding attack, so it is refused (403) rather than
 * merely left without CORS headers.
 */
export function createOriginGuard (options: OriginGuardOptions): onRequestHookHandler {
  const checkHost = createHostGuard(options.allowedHosts)
  const anyOrigin = options.allowOrigins?.includes('*') ?? false
  const origins = new Set(options.allowOrigins ?? [])

  return function originGuard (request, _reply, done) {
    let host: string | undefined
    try {
      host = checkHost(request)
    } catch (error) {
      done(error as Error)
      return
    }
    const origin = request.headers.origin
    if (origin !== undefined && !anyOrigin && !origins.has(origin) && !isSameOrigin(origin, host, request.protocol)) {
      done(new ForbiddenOriginError('the Origin is not allowed'))
      return
    }
    done()
  }
}

/**
 * The boot warning for a listener reachable from other machines with neither `allowedHosts` nor
 * `auth`: any web page a user opens can then reach it by DNS rebinding (only loopback listeners
 * check the Host by default), and anyone on the network can call its tools. Undefined when there
 * is nothing to warn about.
 */
export function exposureWarning (addresses: ReadonlyArray<string | { address: string }>, options: { allowedHosts?: unknown, auth?: unknown }): string | undefined {
  if (options.allowedHosts !== undefined || options.auth !== undefined) return undefined
  // A pipe or socket path is no network address.
  const exposed = addresses.flatMap((a) => typeof a === 'string' ? [] : [a.address]).filter((address) => !isLoopbackAddress(address))
  if (exposed.length === 0) return undefined
  return `MCP endpoints listening on ${exposed.join(', ')} (not loopback) with neither allowedHosts nor auth: ` +
    'any Host is served, so a web page can reach them by DNS rebinding, and anyone on the network can call them. ' +
    'Set allowedHosts to the names clients use, and configure auth.'
}
