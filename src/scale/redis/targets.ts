// What `scaleOut.redis` may name, as the public types say it: no import of ioredis' own types, so
// that an app without scale-out (and so without ioredis, an optional peer) type-checks against
// this package's declarations. topology.ts turns each into a client.

/**
 * An ioredis client handed in by the application (e.g. `fastify.redis`): a `Redis` (one server, or
 * Sentinel) or a `Cluster`. Duplicated, never closed. Typed without ioredis' own types, so that
 * apps without scale-out compile without ioredis.
 */
export interface RedisClientLike {
  // Method syntax on purpose: its parameter is checked bivariantly, so ioredis' `Redis` fits.
  duplicate (override?: object): object
}

/** A Redis node as ioredis takes it. */
export interface RedisNode {
  host: string
  port?: number
}

/**
 * A primary and its replicas watched by Redis Sentinel, as ioredis takes it: `sentinels` (the
 * Sentinels to ask), `name` (the primary's name in their configuration), and any other ioredis
 * option (`password`, `sentinelPassword`, `db`, `tls`...). ioredis asks the Sentinels for the
 * primary at each (re)connection, so a failover is followed.
 */
export interface SentinelConfig {
  sentinels: Array<Partial<RedisNode>>
  name: string
  [option: string]: unknown
}

/**
 * A Redis Cluster: `cluster`, seed nodes (`{ host, port }` or `"host:port"`), the rest of the
 * cluster found from them; `redisOptions`, ioredis options for each node connection (`password`,
 * `tls`...); any other ioredis Cluster option (`natMap`...).
 */
export interface ClusterConfig {
  cluster: Array<RedisNode | string>
  redisOptions?: Record<string, unknown>
  [option: string]: unknown
}

export type RedisTarget = string | SentinelConfig | ClusterConfig | RedisClientLike
