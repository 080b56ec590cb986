// The Lua scripts of the engine. A script is one command for the client and atomic in Redis, which
// is what linearizes a gateway claim against every stream-0 delivery, and what keeps an event log's
// byte bound exact. ioredis defines each as a command: EVALSHA, falling back to EVAL when the
// script cache is empty (a restarted Redis).
//
// Keys a script touches are passed in KEYS, except the gateway's inbox (and its byte count) in
// `mcpDeliver0`, which is only known once the script has read the session: the engine supports a
// single Redis server (or a primary with replicas), not Redis Cluster.

/**
 * Appends `fields` (`d` = data first) to a stream, then evicts the oldest entries while the stream
 * holds more than `maxLen` entries or more than `maxBytes` bytes of `d` (counted in field `slot` of
 * the hash `bytesKey`), as MemoryEventStore does per session. An entry larger than `maxBytes`
 * therefore evicts everything, itself included: a client resuming before it learns the events are
 * gone instead of receiving a replay with a hole. Returns the entry id.
 */
const APPEND = `
local function append(stream, bytesKey, slot, maxLen, maxBytes, ttl, fields)
  local id = redis.call('XADD', stream, '*', unpack(fields))
  local bytes = redis.call('HINCRBY', bytesKey, slot, #fields[2])
  local len = redis.call('XLEN', stream)
  while len > 0 and (len > maxLen or bytes > maxBytes) do
    local oldest = redis.call('XRANGE', stream, '-', '+', 'COUNT', 1)[1]
    redis.call('XDEL', stream, oldest[1])
    bytes = redis.call('HINCRBY', bytesKey, slot, -#oldest[2][2])
    len = len - 1
  end
  if ttl > 0 then
    redis.call('PEXPIRE', stream, ttl)
    redis.call('PEXPIRE', bytesKey, ttl)
  end
  return id
end
`

/**
 * Appends `fields` to an instance's inbox unless it holds `maxBytes` bytes unread already (one
 * message larger than that still goes into an empty inbox: it is bounded by `bodyLimit`). The
 * bytes are those of the field values, counted in `bytesKey` and given back by the reader
 * (`mcpInboxAck`). An inbox is never trimmed by length: each entry is a message someone was
 * answered for (a legacy POST answered 202), so a full inbox refuses instead. Either key created
 * here gets `ttl` (the inbox's owner extends both at each heartbeat): nothing outlives its owner.
 * Returns the entry id, or false when refused.
 */
const INBOX_ADD = `
local function inboxAdd(inbox, bytesKey, maxBytes, ttl, fields)
  local size = 0
  for i = 2, #fields, 2 do size = size + #fields[i] end
  local held = tonumber(redis.call('GET', bytesKey) or '0')
  if held > 0 and held + size > maxBytes then return false end
  local id = redis.call('XADD', inbox, '*', unpack(fields))
  redis.call('INCRBY', bytesKey, size)
  if redis.call('PTTL', inbox) < 0 then redis.call('PEXPIRE', inbox, ttl) end
  if redis.call('PTTL', bytesKey) < 0 then redis.call('PEXPIRE', bytesKey, ttl) end
  return id
end
`

/** Whether `instance` has beaten within its expiry, on Redis' clock, in the live zset `live`. */
const IS_ALIVE = `
local function isAlive(live, instance)
  local expiry = redis.call('ZSCORE', live, instance)
  if not expiry then return false end
  local t = redis.call('TIME')
  return tonumber(expiry) > tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
`

const SOURCES = {
  /** KEYS: session. ARGV: ttlMs, then field/value pairs. A fresh record (no gateway left over). */
  mcpSessionCreate: [1, `
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
if tonumber(ARGV[1]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return 1`],
  /**
   * KEYS: session. ARGV: ttlMs, gateway or '', then field/value pairs. After Redis lost its data:
   * creates the record unless another holder did already, and sets the gateway unless one is set
   * (a claim made since the restart is newer). Never replaces anything.
   */
  mcpSessionRestore: [1, `
if redis.call('HEXISTS', KEYS[1], 'r.id') == 0 then
  redis.call('HSET', KEYS[1], unpack(ARGV, 3))
  if tonumber(ARGV[1]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
end
if ARGV[2] ~= '' then redis.call('HSETNX', KEYS[1], 'gw', ARGV[2]) end
return 1`],
  /** KEYS: session. ARGV: n, n field/value pairs, then fields to remove. 0 when the session is gone. */
  mcpSessionUpdate: [1, `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local n = tonumber(ARGV[1])
if n > 0 then redis.call('HSET', KEYS[1], unpack(ARGV, 2, 1 + 2 * n)) end
if #ARGV > 1 + 2 * n then redis.call('HDEL', KEYS[1], unpack(ARGV, 2 + 2 * n)) end
return 1`],
  /** KEYS: session, then its event logs. ARGV: ttlMs (0: no expiry). 0 when the session is gone. */
  mcpSessionTouch: [4, `
local ttl = tonumber(ARGV[1])
if ttl <= 0 then return redis.call('EXISTS', KEYS[1]) end
if redis.call('PEXPIRE', KEYS[1], ttl) == 0 then return 0 end
for i = 2, #KEYS do redis.call('PEXPIRE', KEYS[i], ttl) end
return 1`],
  /**
   * KEYS: session, its stream-0 log. ARGV: instance. Returns { previous holder or '', newest log id
   * or '0' }, or nil when the session is gone. Atomic against mcpDeliver0: every message logged up
   * to that id went to the previous holder, every later one goes to the new one.
   */
  mcpClaim: [2, `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local previous = redis.call('HGET', KEYS[1], 'gw') or ''
redis.call('HSET', KEYS[1], 'gw', ARGV[1])
local newest = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)[1]
local tail = '0'
if newest then tail = newest[1] end
return { previous, tail }`],
  /**
   * KEYS: session, its stream-0 log, the logs' byte counts. ARGV: data, message (the envelope's
   * JSON, without its position), maxLen, maxBytes, ttlMs, inbox key prefix, inbox maxBytes, inbox
   * TTL, inbox byte-count suffix, from, boot, seq. Logs the message, reads the gateway and puts it
   * in the gateway's inbox, in one step (the gateway is an instance that claimed the stream, never
   * a name a client chose; if it died, its inbox expires). A gateway whose inbox is full gets
   * nothing: the log keeps the message for the client's resume. Returns { log position, 1
   * delivered | -1 inbox full }, or nil when no instance ever held the session's stream 0.
   */
  mcpDeliver0: [3, APPEND + INBOX_ADD + `
local gw = redis.call('HGET', KEYS[1], 'gw')
if not gw then return false end
local pos = append(KEYS[2], KEYS[3], '0', tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), { 'd', ARGV[1] })
local inbox = ARGV[6] .. gw
local id = inboxAdd(inbox, inbox .. ARGV[9], tonumber(ARGV[7]), tonumber(ARGV[8]), { 'f', ARGV[10], 'b', ARGV[11], 'n', ARGV[12], 'm', ARGV[2], 'p', pos })
if not id then return { pos, -1 } end
return { pos, 1 }`],
  /**
   * KEYS: an inbox, its byte count. ARGV: maxBytes, ttlMs, 1 if the inbox's owner must be known
   * to beat (its byte count exists: see mcpBeat) or 0 when the sender knows it alive, then the
   * entry's field/value pairs. The entry id; 0 when the owner is unknown (nothing written: nobody
   * would read it, and a client naming a made-up instance must not create keys); nil when the
   * inbox is full (see INBOX_ADD). Checked in the write rather than in a round trip before it,
   * and on the byte count rather than the live set: a write queued while Redis stalled runs when
   * every expiry in the live set may have passed, before the beats that follow the stall.
   */
  mcpInboxAdd: [2, INBOX_ADD + `
if ARGV[3] == '1' and redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
return inboxAdd(KEYS[1], KEYS[2], tonumber(ARGV[1]), tonumber(ARGV[2]), { unpack(ARGV, 4) })`],
  /**
   * KEYS: this instance's inbox, its byte count. ARGV: the id after the newest entry read, the bytes
   * read. Deletes what the reader has read (every entry before that id) and gives its bytes back.
   * Once the inbox is empty its count is 0 again, so a count gone wrong (entries lost to a Redis
   * restart, an entry written again after one) starts over there. The stream stays, empty, for
   * its last id (see mcpTrimOlder); the TTLs end both once their owner stops beating.
   */
  mcpInboxAck: [2, `
redis.call('XTRIM', KEYS[1], 'MINID', ARGV[1])
if redis.call('XLEN', KEYS[1]) == 0 then
  redis.call('SET', KEYS[2], '0', 'KEEPTTL')
  return 0
end
local left = redis.call('DECRBY', KEYS[2], ARGV[2])
if left < 0 then redis.call('SET', KEYS[2], '0', 'KEEPTTL') end
return math.max(left, 0)`],
  /**
   * KEYS: a stream. ARGV: age (ms). Deletes the entries older than that on Redis' clock (their ids
   * are Redis times): what no live reader can still need. The stream itself stays, empty: it keeps
   * its last id, so later entries sort after every reader's cursor even if the clock steps back.
   */
  mcpTrimOlder: [1, `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return redis.call('XTRIM', KEYS[1], 'MINID', now - tonumber(ARGV[1]))`],
  /**
   * KEYS: a session's request-stream log, the logs' byte counts. ARGV: data, event id, stream,
   * maxLen, maxBytes, ttlMs, the request id as JSON or '' (`q`, on a stream's priming event).
   */
  mcpEventAppend: [2, APPEND + `
local fields = { 'd', ARGV[1], 'i', ARGV[2], 's', ARGV[3] }
if ARGV[7] ~= '' then
  fields[7] = 'q'
  fields[8] = ARGV[7]
end
return append(KEYS[1], KEYS[2], 'r', tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]), fields)`],
  /**
   * KEYS: the live zset, this instance's inbox, its byte count. ARGV: instance, expiry (ms), inbox
   * TTL (ms). Beats on Redis' clock (instances' clocks may differ), drops instances past their
   * expiry, returns { 1 if this instance was registered (unexpired) before this beat else 0, the
   * live ones }. The byte count exists while its owner beats (created here, at 0): it is how a
   * write knows an instance's inbox is read by someone (mcpInboxAdd).
   */
  mcpBeat: [3, `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local was = redis.call('ZSCORE', KEYS[1], ARGV[1])
local registered = 0
if was and tonumber(was) > now then registered = 1 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('SET', KEYS[3], '0', 'NX')
redis.call('PEXPIRE', KEYS[3], ARGV[3])
return { registered, redis.call('ZRANGE', KEYS[1], 0, -1) }`],
  /** KEYS: the live zset. ARGV: instance. 1 when its heartbeat has not expired, on Redis' clock. */
  mcpAlive: [1, IS_ALIVE + `
if isAlive(KEYS[1], ARGV[1]) then return 1 end
return 0`],
  /** KEYS: the live zset. ARGV: instance. */
  mcpLeave: [1, `
return redis.call('ZREM', KEYS[1], ARGV[1])`],
  /**
   * KEYS: task, all tasks, the owner's tasks. ARGV: task JSON, ttlMs, expiresAt, now, maxTasks,
   * maxPerOwner, taskId. 1: too many tasks; 2: too many for the owner; 0: stored.
   */
  mcpTaskCreate: [3, `
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[4])
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[5]) then return 1 end
if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[6]) then return 2 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[7])
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[7])
local ttl = redis.call('PTTL', KEYS[3])
if ttl < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[3], ARGV[2]) end
local all = redis.call('PTTL', KEYS[2])
if all < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[2], ARGV[2]) end
return 0`],
  /** KEYS: task. ARGV: the JSON read, the JSON to write. 1 when replaced; 0 when it changed meanwhile or is gone. */
  mcpTaskSwap: [1, `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
return 1`]
} as const

export type ScriptName = keyof typeof SOURCES

/** In the shape of ioredis' `scripts` option. */
export const SCRIPTS: Record<ScriptName, { lua: string, numberOfKeys: number }> = Object.fromEntries(
  Object.entries(SOURCES).map(([name, [keys, lua]]) => [name, { lua, numberOfKeys: keys }])
) as Record<ScriptName, { lua: string, numberOfKeys: number }>
