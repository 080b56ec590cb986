import type { GatewayClaim, SessionRecord, SessionStore, StoredSession } from '../ports.js'
import { bounded, type RedisPort } from './client.js'
import type { Keys } from './keys.js'

/** Hash field of the stream-0 holder; record fields are `r.<name>`, so they can never collide with it. */
const GATEWAY = 'gw'
const FIELD = 'r.'

/**
 * Session records in Redis: one hash per session, each record field JSON-encoded in its own hash
 * field, so `update` is a plain HSET of the changed fields (no read-modify-write, no Lua JSON,
 * whose cjson turns `[]` into `{}`). Idle expiry is the hash's TTL; `touch` extends it together
 * with the session's event logs, so the logs live exactly as long as the session.
 *
 * Every call fails with `ScaleUnavailableError` (503) when Redis does not answer within
 * `timeoutMs`: a request that needs the record is answered "retry later", never "not found".
 */
export class RedisSessionStore implements SessionStore {
  /**
   * `claimed`: told of each claim that succeeded, with the claim's tail (the bus hands the new
   * gateway the stream-0 messages after it in log order).
   */
  constructor (
    private readonly redis: RedisPort,
    private readonly keys: Keys,
    private readonly timeoutMs: number,
    private readonly claimed: (id: string, instance: string, tail: string, previous: string | undefined) => void = () => {}
  ) {}

  async create (record: SessionRecord, ttlMs: number): Promise<void> {
    await this.call(() => this.redis.script('mcpSessionCreate', [this.keys.session(record.id)], [ttlMs, ...encode(record)]))
  }

  async get (id: string): Promise<StoredSession | undefined> {
    const hash = await this.call(() => this.redis.hgetall(this.keys.session(id)))
    return decode(hash)
  }

  async update (id: string, patch: Partial<Omit<SessionRecord, 'id' | 'kind' | 'principal'>>): Promise<boolean> {
    const set: string[] = []
    const remove: string[] = []
    for (const [name, value] of Object.entries(patch)) {
      // A key present with `undefined` clears the field (a log level reset), as a spread would.
      if (value === undefined) remove.push(FIELD + name)
      else set.push(FIELD + name, JSON.stringify(value))
    }
    const done = await this.call(() => this.redis.script('mcpSessionUpdate', [this.keys.session(id)], [set.length / 2, ...set, ...remove]))
    return done === 1
  }

  async touch (id: string, ttlMs: number): Promise<boolean> {
    return await this.call(() => this.redis.script('mcpSessionTouch', this.keys.ofSession(id), [ttlMs])) === 1
  }

  async claimGateway (id: string, instance: string): Promise<GatewayClaim | undefined> {
    const reply = await this.call(() => this.redis.script('mcpClaim', [this.keys.session(id)], [instance]))
    if (!Array.isArray(reply)) return undefined
    const [previous, tail] = reply as [string, string]
    this.claimed(id, instance, tail, previous === '' ? undefined : previous)
    return { previous: previous === '' ? undefined : previous, tail }
  }

  async restore (record: SessionRecord, ttlMs: number, gateway: string | undefined): Promise<void> {
    await this.call(() => this.redis.script('mcpSessionRestore', [this.keys.session(record.id)], [ttlMs, gateway ?? '', ...encode(record)]))
  }

  async delete (id: string): Promise<void> {
    await this.call(() => this.redis.del(this.keys.ofSession(id)))
  }

  /** The connection belongs to the engine, which closes it. */
  async close (): Promise<void> {}

  private async call<T> (command: () => Promise<T>): Promise<T> {
    return await bounded(this.redis, this.timeoutMs, command)
  }
}

function encode (record: SessionRecord): string[] {
  const fields: string[] = []
  for (const [name, value] of Object.entries(record)) {
    if (value !== undefined) fields.push(FIELD + name, JSON.stringify(value))
  }
  return fields
}

function decode (hash: Record<string, string>): StoredSession | undefined {
  const record: Record<string, unknown> = {}
  for (const [field, value] of Object.entries(hash)) {
    if (field.startsWith(FIELD)) record[field.slice(FIELD.length)] = JSON.parse(value)
  }
  // A hash without its record (a claim racing a delete can leave `gw` alone) is no session.
  if (typeof record.id !== 'string') return undefined
  const gateway = hash[GATEWAY]
  return gateway === undefined ? { record: record as unknown as SessionRecord } : { record: record as unknown as SessionRecord, gateway }
}
