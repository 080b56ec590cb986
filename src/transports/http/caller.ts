import { isIPv6 } from 'node:net'
import type { FastifyRequest } from 'fastify'
import type { AuthGuard } from '../../auth/index.js'
import { principalClient, type Caller, type CallerTransport } from '../../protocol/caller.js'
import type { Principal } from '../../protocol/principal.js'
import type { HttpPeer } from '../../protocol/http.js'

/** Where the JSON body parser leaves the body's length (see `setupHttp`); a symbol, so no name is added to users' requests. */
export const kBodyLength = Symbol('fastify-mcp-server.bodyLength')

/** A request of the MCP routes, as the body parser leaves it. */
type ParsedRequest = FastifyRequest & { [kBodyLength]?: number }

/** Records the length of a JSON body as it is parsed: the string's length, which costs nothing. */
export function recordBodyLength (request: FastifyRequest, body: string | Buffer): void {
  (request as ParsedRequest)[kBodyLength] = body.length
}

/** A message forwarded from another instance (scale-out): its own principal and size, not those of the request that carries it here. */
export interface Forwarded {
  principal: Principal | undefined
  bytes: number
}

/**
 * The caller of a message that came in an HTTP request. Built once per request by the transport
 * (`HttpKit.callerOf`); every field is read from the request on demand, so a call that needs
 * none of them (most of them) costs one small object: the client key, the one field with a price
 * (a key of the identity, or the address's), is computed once, when a per-client bound asks.
 */
export class HttpCaller implements Caller {
  readonly principal: Principal | undefined
  readonly transport: CallerTransport
  private readonly request: FastifyRequest
  private readonly guard: AuthGuard | undefined
  private readonly forwardedBytes: number | undefined
  private key: string | undefined

  constructor (request: FastifyRequest, transport: CallerTransport, guard: AuthGuard | undefined, forwarded?: Forwarded) {
    this.request = request
    this.transport = transport
    this.guard = guard
    this.principal = forwarded === undefined ? request.mcpPrincipal : forwarded.principal
    this.forwardedBytes = forwarded?.bytes
  }

  get client (): string {
    this.key ??= this.principal === undefined ? `address ${addressKey(this.request.ip)}` : principalClient(this.principal)
    return this.key
  }

  get validUntil (): number | undefined {
    return this.principal === undefined ? undefined : this.guard?.validUntil(this.principal)
  }

  get bytes (): number {
    return this.forwardedBytes ?? (this.request as ParsedRequest)[kBodyLength] ?? 0
  }

  get peer (): HttpPeer {
    return this.request.raw
  }
}

/**
 * The client key of an HTTP request with no message yet (a session being opened): the verified
 * identity with auth; without auth, the remote address (Fastify's `request.ip`, which honours
 * `trustProxy`). IPv6 addresses count by their /64 prefix: one host is commonly given a whole
 * /64, so single addresses would be free to mint.
 */
export function clientOf (request: FastifyRequest): string {
  const principal = request.mcpPrincipal
  return principal === undefined ? `address ${addressKey(request.ip)}` : principalClient(principal)
}

/** An IPv4 address as is (IPv4-mapped IPv6 included); an IPv6 address as its /64 prefix. */
export function addressKey (ip: string): string {
  const bare = ip.replace(/%.*$/, '').toLowerCase()
  // Without a colon it is no IPv6 address: the common case, on every 2026-07-28 request, skips the full test.
  if (!bare.includes(':') || !isIPv6(bare)) return bare
  if (bare.startsWith('::ffff:') && bare.includes('.')) return bare.slice('::ffff:'.length)
  const [head = '', tail] = bare.split('::')
  const groups = (part: string): string[] => (part === '' ? [] : part.split(':'))
  // An embedded IPv4 address (the last 32 bits) is written as one dotted part but holds two groups.
  const width = (parts: string[]): number => parts.reduce((n, part) => n + (part.includes('.') ? 2 : 1), 0)
  const front = groups(head)
  const back = tail === undefined ? [] : groups(tail)
  const all = tail === undefined ? front : [...front, ...new Array<string>(8 - width(front) - width(back)).fill('0'), ...back]
  return `${all.slice(0, 4).map((group) => parseInt(group, 16).toString(16)).join(':')}::/64`
}
