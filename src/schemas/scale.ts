import { Type, type Static, type TUnsafe } from '@sinclair/typebox'
import type { RedisClientLike } from '../scale/redis/client.js'
import { INSTANCE_ID_SOURCE } from '../util/ids.js'

/** Defaults of `scaleOut`, in one place (the engine reads them from the resolved options). */
export const SCALE_OUT_DEFAULTS = Object.freeze({
  namespace: 'mcp',
  heartbeatMs: 2000,
  redisTimeoutMs: 1000,
  outboxLimit: 10_000,
  broadcastHistory: 10_000
})

/** A key prefix: plain characters, so keys stay readable in `redis-cli` and need no escaping. */
export const NAMESPACE_PATTERN = '^[A-Za-z0-9_.:-]{1,64}$'
/** Instance ids go into event ids and request ids (`s.{instance}.{n}`): letters, digits and `-`. */
export const INSTANCE_ID_PATTERN = `^${INSTANCE_ID_SOURCE}$`

/**
 * Several instances of one server behind a load balancer, sharing sessions, event logs, tasks and
 * a message bus in Redis. Refused together with `stateless` (which keeps no sessions to share).
 */
export const ScaleOutOptionsSchema = Type.Object({
  /**
   * The Redis server: a `redis://` or `rediss://` URL (`redis://:password@host:6379/0`; read the
   * password from the environment), or an ioredis client such as `fastify.redis`, which is
   * duplicated (the engine needs connections of its own, one of them blocked in XREAD) and never
   * closed by the server. Required. Any value passes the schema and is checked by the rules
   * (rules.ts), whose messages never show the URL: it may hold a password.
   */
  redis: Type.Any() as unknown as TUnsafe<string | RedisClientLike>,
  /** Prefix of every key, so that several servers can share one Redis. Default `mcp`. */
  namespace: Type.Optional(Type.String({ pattern: NAMESPACE_PATTERN, default: SCALE_OUT_DEFAULTS.namespace })),
  /**
   * This instance's id, unique among the live instances (a pod name fits): letters, digits and
   * `-`, at most 64. Default: a random id per start.
   */
  instanceId: Type.Optional(Type.String({ pattern: INSTANCE_ID_PATTERN })),
  /** Interval of this instance's heartbeat, in milliseconds; three missed beats count it dead. Default 2000. */
  heartbeatMs: Type.Optional(Type.Integer({ minimum: 100, maximum: 60_000, default: SCALE_OUT_DEFAULTS.heartbeatMs })),
  /**
   * Longest wait for Redis, in milliseconds, where a request needs it (a session seen first here,
   * `initialize`, a stream claim); past it the request gets 503 with Retry-After. Also bounds the
   * first connection at start. Default 1000.
   */
  redisTimeoutMs: Type.Optional(Type.Integer({ minimum: 1, maximum: 60_000, default: SCALE_OUT_DEFAULTS.redisTimeoutMs })),
  /**
   * Messages between instances that may wait for a slow or unreachable Redis; they are sent in
   * order once it is back. Past it a message is refused (counted, logged once). Default 10000.
   */
  outboxLimit: Type.Optional(Type.Integer({ minimum: 1, default: SCALE_OUT_DEFAULTS.outboxLimit })),
  /**
   * Broadcasts, `resources/updated` and list changes kept in Redis, so that a client resuming its
   * standalone stream on another instance misses none. Default 10000.
   */
  broadcastHistory: Type.Optional(Type.Integer({ minimum: 1, default: SCALE_OUT_DEFAULTS.broadcastHistory }))
}, { additionalProperties: false })
export type ScaleOutOptions = Static<typeof ScaleOutOptionsSchema>

/** `scaleOut` with its defaults filled in. */
export type ResolvedScaleOutOptions = Readonly<Required<Omit<ScaleOutOptions, 'instanceId'>> & Pick<ScaleOutOptions, 'instanceId'>>
