import { Type, type Static } from '@sinclair/typebox'
import type { RedisClientLike } from '../scale/redis/client.js'
import { INSTANCE_ID_SOURCE } from '../util/ids.js'
import { isRecord } from '../util/is-record.js'
import { parseUrl } from '../util/url.js'
import { describeValue } from './engine/describe.js'
import { LIVE, liveObject, type LiveObject } from './engine/live.js'
import { join, type Add } from './engine/problems.js'
import { Defaulted, Live, MiB, strict } from './engine/schema.js'

/** Defaults of `scaleOut`, in one place (the engine reads them from the resolved options). */
export const SCALE_OUT_DEFAULTS = Object.freeze({
  namespace: 'mcp',
  heartbeatMs: 2000,
  redisTimeoutMs: 1000,
  outboxLimit: 10_000,
  broadcastHistory: 10_000,
  inboxBytes: 64 * MiB
})

/** A key prefix: plain characters, so keys stay readable in `redis-cli` and need no escaping. */
const NAMESPACE_PATTERN = '^[A-Za-z0-9_.:-]{1,64}$'
/** Instance ids go into event ids and request ids (`s.{instance}.{n}`): letters, digits and `-`. */
const INSTANCE_ID_PATTERN = `^${INSTANCE_ID_SOURCE}$`

/**
 * Several instances of one server behind a load balancer, sharing sessions, event logs, tasks and
 * a message bus in Redis. Refused together with `stateless` (which keeps no sessions to share).
 */
export const ScaleOutOptionsSchema = Type.Object({
  /**
   * The Redis server: a `redis://` or `rediss://` URL (`redis://:password@host:6379/0`; read the
   * password from the environment), or an ioredis client such as `fastify.redis`, which is
   * duplicated (the engine needs connections of its own, one of them blocked in XREAD) and never
   * closed by the server. Required. Any value passes the schema: a client is checked by
   * `redisClientAt`, a URL by `scaleOutRules`, whose messages never show it: it may hold a password.
   */
  redis: Live<string | RedisClientLike>(),
  /** Prefix of every key, so that several servers can share one Redis. Default `mcp`. */
  namespace: Defaulted(Type.String({ pattern: NAMESPACE_PATTERN, default: SCALE_OUT_DEFAULTS.namespace })),
  /**
   * This instance's id, unique among the live instances (a pod name fits): letters, digits and
   * `-`, at most 64. Default: a random id per start.
   */
  instanceId: Type.Optional(Type.String({ pattern: INSTANCE_ID_PATTERN })),
  /** Interval of this instance's heartbeat, in milliseconds; three missed beats count it dead. Default 2000. */
  heartbeatMs: Defaulted(Type.Integer({ minimum: 100, maximum: 60_000, default: SCALE_OUT_DEFAULTS.heartbeatMs })),
  /**
   * Longest wait for Redis, in milliseconds, where a request needs it (a session seen first here,
   * `initialize`, a stream claim); past it the request gets 503 with Retry-After. Also bounds the
   * first connection at start. Default 1000.
   */
  redisTimeoutMs: Defaulted(Type.Integer({ minimum: 1, maximum: 60_000, default: SCALE_OUT_DEFAULTS.redisTimeoutMs })),
  /**
   * Messages between instances that may wait for a slow or unreachable Redis; they are sent in
   * order once it is back. Past it a message is refused (counted, logged once). Default 10000.
   */
  outboxLimit: Defaulted(Type.Integer({ minimum: 1, default: SCALE_OUT_DEFAULTS.outboxLimit })),
  /**
   * Broadcasts, `resources/updated` and list changes kept in Redis, so that a client resuming its
   * standalone stream on another instance misses none. Default 10000.
   */
  broadcastHistory: Defaulted(Type.Integer({ minimum: 1, default: SCALE_OUT_DEFAULTS.broadcastHistory })),
  /**
   * Bytes of messages one instance's inbox holds unread in Redis (legacy SSE POSTs forwarded to
   * the instance holding their stream, replies to its server requests, its stream-0 deliveries);
   * an instance deletes what it has read. Past it a message is refused: the POST that needed it
   * gets 503 with Retry-After (a stream-0 message stays in the session's log for a resume), and
   * the refusal is counted. One message larger than the bound still fits an empty inbox.
   * Default 67108864 (64 MiB).
   */
  inboxBytes: Defaulted(Type.Integer({ minimum: 65_536, default: SCALE_OUT_DEFAULTS.inboxBytes }))
}, strict)
export type ScaleOutOptions = Static<typeof ScaleOutOptionsSchema>

/** An ioredis client given as `scaleOut.redis` in the HTTP options at `base`; a URL stays for the rules. */
export function redisClientAt (base: readonly string[]): LiveObject {
  return liveObject([...base, 'scaleOut', 'redis'], ['duplicate'], 'an ioredis client', 'rules')
}

/** Rules of `scaleOut` in the HTTP options `http` at `base`. */
export function scaleOutRules (http: Record<string, unknown>, base: string, add: Add): void {
  const scaleOut = http.scaleOut
  if (!isRecord(scaleOut)) return
  const at = join(base, 'scaleOut')
  if (http.stateless === true) {
    add(at, 'refused together with stateless: a stateless server keeps no sessions to share; remove one of the two ' +
      '(stateless servers scale out without it, behind any balancer)')
  }
  const redis = scaleOut.redis
  const path = join(at, 'redis')
  const expected = 'a redis:// or rediss:// URL such as "redis://127.0.0.1:6379/0", or an ioredis client'
  if (redis === undefined) {
    add(path, `required: ${expected}`)
  } else if (typeof redis !== 'string') {
    add(path, `expected ${expected}, got ${describeValue(redis, path)}`)
  } else if (redis !== LIVE) {
    // Never quote the URL: it may hold a password.
    const url = parseUrl(redis)
    if (url === null || url.hostname === '') {
      add(path, `expected ${expected}; the value given is not a URL with a host (not shown: it may hold a password)`)
    } else if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
      add(path, `expected ${expected}, got a ${url.protocol}// URL`)
    } else if (!/^\/?(\d+)?$/.test(url.pathname)) {
      add(path, 'the path of a Redis URL is the database number ("/0"), got another path')
    }
  }
}

/**
 * `scaleOut` serving 2026-07-28 needs `requestState.secret` (`options` holds `requestState` and
 * `protocols`, `http` the HTTP options with `scaleOut`). A multi-round-trip request's retry lands
 * on any instance, which must verify the state another one signed: with a random key per
 * instance it is refused there, and every such retry fails. Refused rather than made up through
 * Redis: a signing key stored there is readable by whatever reads Redis (its replicas, its dumps)
 * and is lost when Redis restarts empty, invalidating every state in flight; one line of
 * configuration, the same on every instance, has neither problem.
 */
export function scaleOutSecretRule (options: Record<string, unknown>, http: Record<string, unknown>, add: Add): void {
  if (!isRecord(http.scaleOut)) return
  const protocols = options.protocols
  if (Array.isArray(protocols) && !protocols.includes('modern')) return
  const requestState = options.requestState
  if (isRecord(requestState) && requestState.secret !== undefined) return
  add('requestState.secret', 'required with scaleOut while 2026-07-28 is served: a multi-round-trip retry may land on any ' +
    'instance, which must verify the requestState another one signed; set the same secret (at least 32 characters, read from ' +
    "the environment) on every instance, or serve only protocols: ['legacy']")
}
