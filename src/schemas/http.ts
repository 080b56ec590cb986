import { isIP } from 'node:net'
import { Type, type Static } from '@sinclair/typebox'
import type { EventStore } from '../scale/ports.js'
import { isRecord } from '../util/is-record.js'
import { LIVE, liveObject, type LiveObject } from './engine/live.js'
import { join, type Add } from './engine/problems.js'
import { Defaulted, Live, MiB, strict } from './engine/schema.js'
import { AuthOptionsSchema, authRules } from './auth.js'
import { rateLimitProperties } from './authz.js'
import { ScaleOutOptionsSchema, scaleOutRules } from './scale-out.js'

// The HTTP options: the routes, CORS, limits and timeouts shared by the plugin and the standalone
// server's `sse` transport, and the listener that only the standalone server has.

/** An absolute request path without query or fragment. */
const ENDPOINT_PATTERN = '^/[^?#]*$'
/** `*` or a browser origin: `scheme://host[:port]`, no path, no trailing slash. */
const ORIGIN_PATTERN = '^(\\*|[A-Za-z][A-Za-z0-9+.-]*://[^/?#@\\s]+)$'
export const HTTP_PATTERN_WORDS = {
  [ENDPOINT_PATTERN]: 'a path starting with "/"',
  [ORIGIN_PATTERN]: '"*" or an origin (scheme://host[:port])'
}

const CorsOptionsSchema = Type.Object({
  /**
   * Origins allowed to call the MCP endpoints from a browser, each `*` or `scheme://host[:port]`
   * (for example `https://app.example.com`). An empty list allows no cross-origin caller.
   * `*` is refused when `auth` is configured.
   */
  allowOrigins: Type.Array(Type.String({ pattern: ORIGIN_PATTERN }))
}, strict)
export type CorsOptions = Static<typeof CorsOptionsSchema>

// Options of the HTTP routes, shared by the standalone SSE transport and the Fastify plugin.
export const httpRouteProperties = {
  /** Path of the SSE event stream (GET). Default `/sse`. */
  endpoint: Defaulted(Type.String({ pattern: ENDPOINT_PATTERN, default: '/sse' })),
  /** Path where SSE clients POST their messages. Default `/messages`. */
  messageEndpoint: Defaulted(Type.String({ pattern: ENDPOINT_PATTERN, default: '/messages' })),
  /** Path of the Streamable HTTP endpoint (GET, POST, DELETE); `false` disables it. Default `/mcp`. */
  streamableEndpoint: Defaulted(Type.Union(
    [Type.String({ pattern: ENDPOINT_PATTERN }), Type.Literal(false)], { default: '/mcp' })),
  /** CORS for browser clients. Unset = no CORS headers (same-origin only). */
  cors: Type.Optional(CorsOptionsSchema),
  /** Authentication of every MCP route. Unset = no authentication. */
  auth: Type.Optional(AuthOptionsSchema),
  ...rateLimitProperties,
  /**
   * Host header values accepted besides the loopback names (`localhost`, `[::1]`, `127.x.y.z`)
   * while bound to loopback; protects against DNS rebinding. Default: none.
   */
  allowedHosts: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
  /** Largest request body accepted, in bytes. Default 4 MiB (4194304). */
  bodyLimit: Defaulted(Type.Integer({ minimum: 1024, default: 4 * MiB })),
  /** Concurrent sessions; further connections get 503 with Retry-After. Default 10000. */
  maxSessions: Defaulted(Type.Integer({ minimum: 1, default: 10000 })),
  /**
   * Concurrent sessions of one client, so that no client can take every slot: with `auth` a
   * client is its identity (method, issuer, subject); without, its remote address (`request.ip`:
   * behind a proxy set `trustProxy`, Fastify's for the plugin; IPv6 by /64 prefix). Further sessions get 429
   * with Retry-After. In `stateless` mode every request in flight is a session. Default 100.
   */
  maxSessionsPerClient: Defaulted(Type.Integer({ minimum: 1, default: 100 })),
  /**
   * A new session is closed unless its client completes initialization within this many
   * milliseconds: legacy SSE, `initialize` and one more message; Streamable HTTP, a request with
   * the session id after `initialize`. Default 30000 (30 s).
   */
  sessionInitTimeoutMs: Defaulted(Type.Integer({ minimum: 1, default: 30_000 })),
  /** Outbound bytes buffered per session before a slow client is cut off. Default 4 MiB. */
  maxQueuedBytes: Defaulted(Type.Integer({ minimum: 1024, default: 4 * MiB })),
  /** Interval of keep-alive comments on open streams, in milliseconds. Default 15000. */
  keepAliveIntervalMs: Defaulted(Type.Integer({ minimum: 1000, default: 15000 })),
  /** A session idle this long is closed, in milliseconds; 0 disables. Default 1800000 (30 min). */
  idleTimeoutMs: Defaulted(Type.Integer({ minimum: 0, default: 1_800_000 })),
  /** Streamable HTTP without sessions: each POST stands alone. Default false. */
  stateless: Defaulted(Type.Boolean({ default: false })),
  /** Events kept per session so a client can resume with Last-Event-ID; 0 disables. Default 100. */
  eventStoreSize: Defaulted(Type.Integer({ minimum: 0, default: 100 })),
  /**
   * Bytes of events (UTF-8 JSON) kept per session for resumption, besides `eventStoreSize`; the
   * oldest are evicted first, and an event larger than this is not kept. Default 4 MiB (4194304).
   */
  eventStoreBytes: Defaulted(Type.Integer({ minimum: 1024, default: 4 * MiB })),
  /**
   * Bytes of events kept for resumption for the sessions of one client, all its sessions together;
   * a client is its identity with `auth`, its address without (as `maxSessionsPerClient` counts).
   * An event past it drops the session's own oldest events first; if it still does not fit, it is
   * written live but not kept (a resume from before it gets 400), and the refusal is counted.
   * Events are given back as they are dropped and when their session ends. With `scaleOut`, each
   * instance counts the request-stream events it wrote. At least `eventStoreBytes`. Default
   * 67108864 (64 MiB).
   */
  eventStoreBytesPerClient: Defaulted(Type.Integer({ minimum: 1024, default: 64 * MiB })),
  /**
   * Bytes of events kept for resumption, all sessions of all clients together; past it, as past
   * `eventStoreBytesPerClient`. At least `eventStoreBytesPerClient`. Default 536870912 (512 MiB).
   */
  eventStoreBytesTotal: Defaulted(Type.Integer({ minimum: 1024, default: 512 * MiB })),
  /**
   * Where the events of Streamable HTTP sessions are kept for resumption: an object implementing
   * `EventStore` (`append`, `replayAfter`, `deleteSession`; each may return a promise). Used as
   * given (never copied or frozen) and bounded by itself: `eventStoreSize` and `eventStoreBytes`
   * bound the built-in stores only. With `scaleOut` it replaces the Redis event log, so it must be
   * shared by every instance. Refused with `stateless`. Default: a bounded in-memory store (Redis
   * with `scaleOut`). Any value passes the schema and is checked by `eventStoreAt`.
   */
  eventStore: Type.Optional(Live<EventStore>()),
  /**
   * Run several instances of this server behind a load balancer (no stickiness needed), sharing
   * sessions, event logs, tasks and messages in Redis. Unset = one process holds everything.
   */
  scaleOut: Type.Optional(ScaleOutOptionsSchema)
}

export const HttpOptionsSchema = Type.Object({
  /** TCP port of the listener; 0 picks a free port. Default 8080. */
  port: Defaulted(Type.Integer({ minimum: 0, maximum: 65535, default: 8080 })),
  /** Interface to bind. Default `127.0.0.1` (loopback only); use `0.0.0.0` to expose it. */
  host: Defaulted(Type.String({ minLength: 1, default: '127.0.0.1' })),
  /**
   * Longest time to receive one whole request, headers and body, in milliseconds: a client that
   * sends slower (a body trickled byte by byte holds a connection and its memory) gets 408 and
   * is disconnected. Open event streams are not affected: their request is complete. 0 disables
   * (not advised). Default 30000.
   */
  requestReadTimeoutMs: Defaulted(Type.Integer({ minimum: 0, default: 30_000 })),
  /**
   * Longest time to receive a request's headers, in milliseconds, at most `requestReadTimeoutMs`.
   * Default 10000.
   */
  headersTimeoutMs: Defaulted(Type.Integer({ minimum: 1, default: 10_000 })),
  /**
   * The reverse proxies (load balancers) in front of the server whose `X-Forwarded-For` to believe,
   * so that `request.ip`, and with it every bound counted per client without `auth`
   * (`maxSessionsPerClient`, `listen.maxStreamsPerPrincipal`, `tasks.maxTasksPerPrincipal`...), is
   * the client's address rather than the proxy's: the proxies' addresses or CIDR ranges (a list,
   * or one string, comma-separated; `loopback`, `linklocal` and `uniquelocal` name those ranges).
   * The client is then the last address in `X-Forwarded-For` that is not a trusted proxy's, which
   * no client can forge past a proxy that appends the address it sees. Fastify's `trustProxy`,
   * minus `true` (it would believe any address a client makes up) and hop counts (Fastify trusts
   * nothing with one). Default false: the connection's address.
   */
  trustProxy: Defaulted(Type.Union([
    Type.Boolean(), Type.String({ minLength: 1 }), Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })
  ], { default: false })),
  ...httpRouteProperties
  // default {} so an `sse` transport given without options still gets every default filled in.
}, { ...strict, default: {} })
export type HttpTransportOptions = Static<typeof HttpOptionsSchema>

/** The `eventStore` of the HTTP options at `base`. */
export function eventStoreAt (base: readonly string[]): LiveObject {
  return liveObject([...base, 'eventStore'], ['append', 'replayAfter', 'deleteSession'], 'an EventStore')
}

/** Rules of the HTTP options `http` at `base` (`transport.options`, or `''` for the plugin). */
export function httpRules (http: Record<string, unknown>, base: string, add: Add): void {
  const seen = new Map<string, string>()
  for (const key of ['endpoint', 'messageEndpoint', 'streamableEndpoint']) {
    const path = http[key]
    if (typeof path !== 'string') continue
    if (!path.startsWith('/') || /[?#]/.test(path)) {
      add(join(base, key), `expected a path starting with "/" and without "?" or "#", got ${JSON.stringify(path)}`)
    }
    const other = seen.get(path)
    if (other !== undefined) {
      add(join(base, key), `same path as ${other} (${JSON.stringify(path)}): each endpoint needs its own path`)
    } else {
      seen.set(path, key)
    }
  }

  const origins = isRecord(http.cors) ? http.cors.allowOrigins : undefined
  if (Array.isArray(origins)) {
    origins.forEach((origin, i) => {
      if (typeof origin !== 'string') return
      const path = join(join(base, 'cors.allowOrigins'), i)
      if (origin === '*') {
        if (http.auth !== undefined) {
          add(path, 'wildcard origin "*" is refused together with auth: any website could call the server ' +
            'with a user\'s credentials; list explicit origins such as "https://app.example.com"')
        }
      } else if (!new RegExp(ORIGIN_PATTERN).test(origin) || !URL.canParse(origin)) {
        add(path, 'expected "*" or an origin such as "https://app.example.com" (scheme://host[:port], ' +
          `no path, no trailing slash), got ${JSON.stringify(origin)}`)
      }
    })
  }

  scaleOutRules(http, base, add)
  eventBytesRules(http, base, add)
  if (http.eventStore === LIVE && http.stateless === true) {
    add(join(base, 'eventStore'), 'refused together with stateless: a stateless server keeps no events to resume; remove one of the two')
  }
  authRules(http.auth, join(base, 'auth'), add)
}

/**
 * A client's share of kept events below one session's would make `eventStoreBytes` a bound no
 * session reaches (an answer it promises to keep would never be); everyone's below one client's
 * share would be the real one.
 */
function eventBytesRules (http: Record<string, unknown>, base: string, add: Add): void {
  const { eventStoreBytes: session, eventStoreBytesPerClient: perClient, eventStoreBytesTotal: total } = http
  if (typeof perClient === 'number' && typeof session === 'number' && perClient < session) {
    add(join(base, 'eventStoreBytesPerClient'), `${perClient} is smaller than eventStoreBytes (${session}), the bytes one session keeps: raise it, or lower eventStoreBytes`)
  }
  if (typeof perClient === 'number' && typeof total === 'number' && total < perClient) {
    add(join(base, 'eventStoreBytesTotal'), `${total} is smaller than eventStoreBytesPerClient (${perClient}), which it includes: raise it, or lower eventStoreBytesPerClient`)
  }
}

/** Names proxy-addr (Fastify's `trustProxy`) gives to address ranges. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal'])

/** Whether `entry` is an address, a CIDR range or a range name that `trustProxy` understands. */
function isProxyEntry (entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry)) return true
  const [address = '', prefix, ...rest] = entry.split('/')
  const family = isIP(address)
  if (family === 0 || rest.length > 0) return false
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128))
}

/** `trustProxy` of the listener: never `true`, and every entry an address, a range or a range name. */
function trustProxyRules (trust: unknown, path: string, add: Add): void {
  if (trust === true) {
    add(path, 'true is refused: it believes any X-Forwarded-For a client sends, so a made-up address would escape every per-client ' +
      'bound; give the proxies\' addresses or ranges (\'10.0.0.2\', [\'10.0.0.0/24\'])')
    return
  }
  const entries = typeof trust === 'string' ? trust.split(',').map((entry) => entry.trim()) : Array.isArray(trust) ? trust : []
  entries.forEach((entry, i) => {
    if (typeof entry !== 'string' || isProxyEntry(entry)) return
    const at = Array.isArray(trust) ? join(path, i) : path
    add(at, `expected an IP address, a CIDR range (10.0.0.0/8) or one of loopback, linklocal, uniquelocal, got ${JSON.stringify(entry)}`)
  })
}

/** Rules of the standalone server's listener options (`transport.options`). */
export function listenerRules (http: Record<string, unknown>, base: string, add: Add): void {
  trustProxyRules(http.trustProxy, join(base, 'trustProxy'), add)
  const { requestReadTimeoutMs: whole, headersTimeoutMs: headers } = http
  if (typeof whole === 'number' && typeof headers === 'number' && whole > 0 && headers > whole) {
    add(join(base, 'headersTimeoutMs'), `${headers} is longer than requestReadTimeoutMs (${whole}), which ` +
      'includes the headers: lower it, or raise requestReadTimeoutMs')
  }
}
