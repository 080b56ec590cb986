import { Type, type Static } from '@sinclair/typebox'
import type { ClusterConfig, RedisClientLike, SentinelConfig } from '../scale/redis/targets.js'
import { MAX_SHARDS } from '../scale/redis/keys.js'
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
   * Where Redis is. Required. One of:
   * - one server: a `redis://` or `rediss://` URL (`redis://:password@host:6379/0`; read the
   *   password from the environment);
   * - a primary with replicas watched by Sentinel: `{ sentinels: [{ host, port }, ...], name }`
   *   plus any ioredis option (`password`, `sentinelPassword`, `db`, `tls`...); a failover is followed;
   * - a Redis Cluster: `{ cluster: [{ host, port }, ...], redisOptions? }` (seeds; `redisOptions`:
   *   ioredis options of each node connection, such as `password`) plus any ioredis Cluster option;
   * - an ioredis client (`Redis`, for one server or Sentinel, or `Cluster`) such as `fastify.redis`,
   *   duplicated (the engine needs connections of its own, some blocked in XREAD) and never
   *   closed by the server.
   * Valkey speaks the same protocol and works the same way. Any value passes the schema: objects
   * are checked by `redisClientAt` (and passed on as given, never cloned), a URL by
   * `scaleOutRules`, whose messages never show it: it may hold a password.
   */
  redis: Live<string | SentinelConfig | ClusterConfig | RedisClientLike>(),
  /**
   * Bus shards: the control and fan-out streams and the inboxes are split in this many parts, each
   * in its own Cluster slot, spread evenly over the slot space, so that the bus's traffic spreads
   * over the primaries (the primaries of an even Cluster get one shard each when this is their
   * number, or a multiple of it). Each shard costs every instance one connection. Must be the
   * same on every instance. Default: 3 on a Cluster (a 3-primary cluster), 1 otherwise (one
   * server carries everything anyway).
   */
  shards: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_SHARDS })),
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

/**
 * An object given as `scaleOut.redis` in the HTTP options at `base` (an ioredis client, or a
 * Sentinel or Cluster configuration, which may hold functions and TLS keys: never cloned); a URL
 * stays for the rules.
 */
export function redisClientAt (base: readonly string[]): LiveObject {
  return liveObject([...base, 'scaleOut', 'redis'], ['duplicate'], 'an ioredis client', 'rules', redisObjectProblems)
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
  const expected = `a redis:// or rediss:// URL such as "redis://127.0.0.1:6379/0", ${OBJECTS}`
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

const OBJECTS = 'a Sentinel configuration { sentinels, name }, a Cluster configuration { cluster }, or an ioredis client'

/**
 * What is wrong with an object given as `scaleOut.redis`: a client needs `duplicate()`; a Sentinel
 * configuration needs its Sentinels and the primary's name, a Cluster one its seeds, each a host
 * and a port. Other keys go to ioredis as given. Values are never quoted (passwords sit beside them).
 */
function redisObjectProblems (value: object, path: string): Array<{ path: string, message: string }> {
  const problems: Array<{ path: string, message: string }> = []
  const add = (at: string, message: string): void => { problems.push({ path: at, message }) }
  const record = value as Record<string, unknown>
  if (typeof record.duplicate === 'function') return problems
  if ('sentinels' in record) {
    nodesProblems(record.sentinels, join(path, 'sentinels'), 'Sentinels', add)
    if (typeof record.name !== 'string' || record.name === '') add(join(path, 'name'), 'required: the primary\'s name in the Sentinels\' configuration (a non-empty string)')
  } else if ('cluster' in record) {
    nodesProblems(record.cluster, join(path, 'cluster'), 'seed nodes', add)
    if (record.redisOptions !== undefined && !isRecord(record.redisOptions)) add(join(path, 'redisOptions'), 'expected an object of ioredis options for each node connection')
  } else {
    add(path, `expected ${OBJECTS}, got an object without duplicate(), sentinels or cluster`)
  }
  return problems
}

/** A non-empty list of `{ host, port }` (or `"host:port"` strings, for Cluster seeds). */
function nodesProblems (nodes: unknown, path: string, what: string, add: Add): void {
  if (!Array.isArray(nodes) || nodes.length === 0) {
    add(path, `expected a non-empty list of ${what}, each { host, port }`)
    return
  }
  nodes.forEach((node: unknown, i) => {
    const at = join(path, i)
    if (typeof node === 'string' && what === 'seed nodes') {
      if (!/^[^\s:]+:\d{1,5}$/.test(node)) add(at, 'expected "host:port"')
      return
    }
    if (!isRecord(node) || typeof node.host !== 'string' || node.host === '') {
      add(at, 'expected { host, port } with a host name or address')
    } else if (node.port !== undefined && (!Number.isInteger(node.port) || (node.port as number) < 1 || (node.port as number) > 65535)) {
      add(join(at, 'port'), 'expected an integer from 1 to 65535')
    }
  })
}
