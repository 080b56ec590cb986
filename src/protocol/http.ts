import type { NetworkPeer } from '../telemetry/index.js'

/** Request header values as Node parses them (`IncomingMessage.headers`). */
export type HeaderValues = Readonly<Record<string, string | string[] | undefined>>

/** The credential of the HTTP request that carried a call, as the server's auth verified it. */
export interface HttpCredential {
  /** `'bearer'`: the token of `Authorization: Bearer` (`jwt`, `oauth`); `'apikey'`: an API key. */
  readonly type: 'bearer' | 'apikey'
  /** The token or key itself. Treat it as a secret: never log it. */
  readonly value: string
  /**
   * The header (lower case) it is passed on in by {@link HttpContext.forwardable}: `authorization`,
   * or the API-key header (`x-api-key`), also for a key that arrived in the query string.
   */
  readonly header: string
}

/**
 * `ctx.http`: the HTTP request that carried this call (the POST on Streamable HTTP and legacy SSE,
 * on 2025 sessions and 2026-07-28 requests alike). Undefined on stdio.
 */
export interface HttpContext {
  /** The request method (`POST`). */
  readonly method: string
  /** The request path, prefix included, without the query string (which may hold a credential). */
  readonly path: string
  /** The client's address as the app sees it (`request.ip`: behind a proxy, set Fastify's `trustProxy`). */
  readonly remoteAddress: string | undefined
  /**
   * The request headers, frozen, names in lower case, without any credential: no `authorization`,
   * `proxy-authorization`, `cookie` or API-key header. Read the credential from {@link credential}.
   */
  readonly headers: Readonly<Record<string, string>>
  /** The credential the server's auth verified for this request; undefined without auth. */
  readonly credential: HttpCredential | undefined
  /**
   * The headers to pass to an API behind this server on the caller's behalf: the verified
   * {@link credential} in its header, plus the request's headers named in `allowList` (any case).
   * Never hop-by-hop headers (`connection` and those it names, `keep-alive`, `te`, `trailer`,
   * `transfer-encoding`, `upgrade`, `proxy-*`), `host`, `content-length` or `mcp-*`, even when
   * listed. An allow-list naming `authorization` or `cookie` passes them on unverified: do that
   * only for an API that checks them itself (without `auth` configured here, for example).
   */
  forwardable: (allowList?: readonly string[]) => Record<string, string>
}

/**
 * What the HTTP transport learnt about a request while admitting it, beyond the raw request:
 * attached to it by the transport (one property, read only when a handler asks).
 */
export interface HttpFacts {
  /** The client address, proxies taken into account. */
  readonly remoteAddress: string | undefined
  /** The credential the auth guard verified; undefined without auth. */
  readonly credential: HttpCredential | undefined
  /** Header carrying the API key (lower case), kept out of `headers`; undefined when auth is not `apikey`. */
  readonly credentialHeader: string | undefined
}

/** Where the transport attaches {@link HttpFacts} on the raw request. */
export const kHttpFacts = Symbol('fastify-mcp-server.http-facts')

/**
 * What a transport hands the dispatcher for a message that came over HTTP: Node's
 * `IncomingMessage` fits as it is (the transports pass `request.raw` and allocate nothing).
 */
export interface HttpPeer extends NetworkPeer {
  readonly method?: string | undefined
  readonly url?: string | undefined
  readonly headers: HeaderValues
  [kHttpFacts]?: HttpFacts
}

/** Credentials by nature, whatever the auth configuration: never in `ctx.http.headers`. */
const CREDENTIAL_HEADERS: ReadonlySet<string> = new Set(['authorization', 'proxy-authorization', 'cookie'])

/** Hop-by-hop headers (RFC 9110 §7.6.1) and the message's own framing: never forwarded. */
const NEVER_FORWARDED: ReadonlySet<string> = new Set([
  'connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade',
  'proxy-authenticate', 'proxy-authorization', 'host', 'content-length'
])

/** Whether `name` (lower case) may go to an API behind, listed or not. */
export function mayForward (name: string): boolean {
  return !NEVER_FORWARDED.has(name) && !name.startsWith('mcp-')
}

/**
 * `ctx.http` of a request: built from the raw request on first read, each part computed once. A
 * handler that never reads `ctx.http` costs nothing but this object.
 */
export class RequestHttp implements HttpContext {
  private readonly peer: HttpPeer
  private view: Readonly<Record<string, string>> | undefined

  constructor (peer: HttpPeer) {
    this.peer = peer
  }

  get method (): string {
    return this.peer.method ?? 'POST'
  }

  get path (): string {
    const url = this.peer.url ?? '/'
    const query = url.indexOf('?')
    return query === -1 ? url : url.slice(0, query)
  }

  get remoteAddress (): string | undefined {
    const facts = this.peer[kHttpFacts]
    return facts === undefined ? this.peer.socket?.remoteAddress : facts.remoteAddress
  }

  get headers (): Readonly<Record<string, string>> {
    this.view ??= headersWithout(this.peer.headers, this.peer[kHttpFacts]?.credentialHeader)
    return this.view
  }

  get credential (): HttpCredential | undefined {
    return this.peer[kHttpFacts]?.credential
  }

  forwardable (allowList: readonly string[] = []): Record<string, string> {
    return forwardableOf(this.peer.headers, this.credential, allowList)
  }

  /** The same answers, copied out of the request: for a task, which outlives it. */
  detach (): HttpContext {
    const copy = {
      method: this.method,
      path: this.path,
      remoteAddress: this.remoteAddress,
      headers: this.headers,
      credential: this.credential
    }
    const raw = { ...this.peer.headers }
    return Object.freeze({ ...copy, forwardable: (allowList: readonly string[] = []) => forwardableOf(raw, copy.credential, allowList) })
  }
}

function headersWithout (headers: HeaderValues, credentialHeader: string | undefined): Readonly<Record<string, string>> {
  // No prototype: a header named `constructor` or `__proto__` is only ever a header.
  const view: Record<string, string> = Object.create(null)
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || CREDENTIAL_HEADERS.has(name) || name === credentialHeader) continue
    view[name] = typeof value === 'string' ? value : value.join(', ')
  }
  return Object.freeze(view)
}

function forwardableOf (headers: HeaderValues, credential: HttpCredential | undefined, allowList: readonly string[]): Record<string, string> {
  // A plain object (dictionary-mode null-prototype ones are slower): its names come from the
  // allow-list, and only own properties of the request's headers are read.
  const forwarded: Record<string, string> = {}
  // Headers the Connection header names are hop-by-hop too (RFC 9110 §7.6.1).
  const connection = headers.connection
  const named = typeof connection === 'string' ? connection.toLowerCase().split(',').map((token) => token.trim()) : []
  for (const listed of allowList) {
    const name = listed.toLowerCase()
    const value = Object.hasOwn(headers, name) ? headers[name] : undefined
    if (value === undefined || !mayForward(name) || named.includes(name)) continue
    forwarded[name] = typeof value === 'string' ? value : value.join(', ')
  }
  if (credential !== undefined) forwarded[credential.header] = credential.type === 'bearer' ? `Bearer ${credential.value}` : credential.value
  return forwarded
}
