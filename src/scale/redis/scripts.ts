// The Lua scripts of the engine. A script is one command for the client and atomic in Redis, which
// is what linearizes a gateway claim against every stream-0 delivery, and what keeps an event log's
// byte bound exact. ioredis defines each as a command: EVALSHA, falling back to EVAL when the
// script cache is empty (a restarted Redis).
//
// Redis Cluster runs a script on the primary of its keys' slot, so every script touches only the
// keys passed in KEYS, all of one slot (keys.ts tags them so): none derives a key from what it
// reads. Where a step needs a key known only afterwards (the inbox of a session's gateway), the
// script returns what it read and the engine issues the next command.

import { INBOX_SOURCES } from './inbox-scripts.js'

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
    -- Not -#data: for an empty one (a priming event) Lua makes -0, which HINCRBY refuses.
    bytes = redis.call('HINCRBY', bytesKey, slot, 0 - #oldest[2][2])
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
 * The books of task bytes: a hash per scope (every task, one client's) holding each task's weight
 * by task id and their sum in field `#` (task ids are UUIDs). Pruning follows the scope's zset of
 * task ids scored by expiry, so a task's weight leaves the books when its TTL ends, as in
 * MemoryTaskStore; each key lives as long as its longest task.
 */
const TASK_BOOKS = `
local function held(bytes) return tonumber(redis.call('HGET', bytes, '#') or '0') end
local function prune(zset, bytes, now)
  local gone = redis.call('ZRANGEBYSCORE', zset, '-inf', now)
  if #gone == 0 then return end
  for _, id in ipairs(gone) do
    local weight = redis.call('HGET', bytes, id)
    if weight then
      redis.call('HINCRBY', bytes, '#', -tonumber(weight))
      redis.call('HDEL', bytes, id)
    end
  end
  redis.call('ZREMRANGEBYSCORE', zset, '-inf', now)
end
local function weigh(bytes, id, weight)
  local before = tonumber(redis.call('HGET', bytes, id) or '0')
  redis.call('HSET', bytes, id, weight)
  redis.call('HINCRBY', bytes, '#', weight - before)
end
local function keep(key, ttl)
  if redis.call('PTTL', key) < tonumber(ttl) then redis.call('PEXPIRE', key, ttl) end
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
   * KEYS: session. ARGV: instance. Returns { previous holder or '', newest stream-0 position or '0' },
   * or nil when the session is gone. Atomic against mcpDeliver0: every message logged up to that
   * position is for the previous holder, every later one for the new one.
   */
  mcpClaim: [1, `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local previous = redis.call('HGET', KEYS[1], 'gw') or ''
redis.call('HSET', KEYS[1], 'gw', ARGV[1])
return { previous, redis.call('HGET', KEYS[1], 'l0') or '0' }`],
  /**
   * KEYS: session, its stream-0 log, the logs' byte counts. ARGV: data, maxLen, maxBytes, ttlMs.
   * Logs the message and reads the gateway, in one step against mcpClaim. Returns { gateway, the
   * position before (`l0`, '0' for none), the message's position }, or nil when no instance ever
   * held the session's stream 0 (nothing is logged). The engine then hands the message to the
   * gateway's inbox (another slot).
   */
  mcpDeliver0: [3, APPEND + `
local gw = redis.call('HGET', KEYS[1], 'gw')
if not gw then return false end
local prev = redis.call('HGET', KEYS[1], 'l0') or '0'
local pos = append(KEYS[2], KEYS[3], '0', tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), { 'd', ARGV[1] })
redis.call('HSET', KEYS[1], 'l0', pos)
return { gw, prev, pos }`],
  /**
   * KEYS: a session's request-stream log, the logs' byte counts. ARGV: data, event id, stream,
   * maxLen, maxBytes, ttlMs, the request id as JSON or '' (`q`, on a stream's priming event).
   * Returns the bytes the log holds after (what a client's share of kept events counts).
   */
  mcpEventAppend: [2, APPEND + `
local fields = { 'd', ARGV[1], 'i', ARGV[2], 's', ARGV[3] }
if ARGV[7] ~= '' then
  fields[7] = 'q'
  fields[8] = ARGV[7]
end
append(KEYS[1], KEYS[2], 'r', tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]), fields)
return tonumber(redis.call('HGET', KEYS[2], 'r') or '0')`],
  /**
   * KEYS: the live zset, this instance's inbox on shard 0, its byte count. ARGV: instance, expiry
   * (ms), inbox TTL (ms). Beats on Redis' clock (instances' clocks may differ), drops instances
   * past their expiry, returns { 1 if this instance was registered (unexpired) before this beat
   * else 0, the live ones }. The inbox's byte count exists while its owner beats (created here, at
   * 0; mcpInboxKeep on the other shards): it is how a write knows an inbox is read (mcpInboxAdd).
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
  /**
   * KEYS: the live zset, the homes hash. ARGV: instance, shards. With several bus shards: gives the
   * instance the home shard (where it writes its fan-out) that the fewest live instances have,
   * forgetting the homes of instances no longer live. Returns the shard.
   */
  mcpJoin: [2, `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local live = {}
for _, instance in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. now, '+inf')) do live[instance] = true end
local count = {}
for k = 0, tonumber(ARGV[2]) - 1 do count[k] = 0 end
local homes = redis.call('HGETALL', KEYS[2])
for i = 1, #homes, 2 do
  local shard = tonumber(homes[i + 1])
  if live[homes[i]] and homes[i] ~= ARGV[1] and count[shard] then count[shard] = count[shard] + 1
  elseif not live[homes[i]] then redis.call('HDEL', KEYS[2], homes[i]) end
end
local home = 0
for k = 1, tonumber(ARGV[2]) - 1 do if count[k] < count[home] then home = k end end
redis.call('HSET', KEYS[2], ARGV[1], home)
return home`],
  /**
   * KEYS: one fan-out stream. ARGV: an id, the reader's cursor in the stream, count. Makes every
   * later entry of the stream sort after the id (XSETID: Redis then assigns larger ids), so that a
   * reader merging the fan-out shards knows it has every entry up to the id; returns the entries
   * after the cursor up to the id (at most count), and the stream's last id.
   */
  mcpFence: [1, `
local function parse(id)
  local ms, seq = string.match(id, '^(%d+)-(%d+)$')
  return tonumber(ms), tonumber(seq)
end
local function before(a, b)
  local am, as = parse(a)
  local bm, bs = parse(b)
  return am < bm or (am == bm and as < bs)
end
local last = '0-0'
if redis.call('EXISTS', KEYS[1]) == 1 then
  local info = redis.call('XINFO', 'STREAM', KEYS[1])
  for i = 1, #info, 2 do if info[i] == 'last-generated-id' then last = info[i + 1] end end
end
if before(last, ARGV[1]) then
  if redis.call('EXISTS', KEYS[1]) == 0 then
    redis.call('XADD', KEYS[1], ARGV[1], 'fence', '1')
    redis.call('XDEL', KEYS[1], ARGV[1])
  else
    redis.call('XSETID', KEYS[1], ARGV[1])
  end
  last = ARGV[1]
end
local entries = {}
if before(ARGV[2], ARGV[1]) then entries = redis.call('XRANGE', KEYS[1], '(' .. ARGV[2], ARGV[1], 'COUNT', ARGV[3]) end
return { last, entries }`],
  /** KEYS: the live zset. ARGV: instance. 1 when its heartbeat has not expired, on Redis' clock. */
  mcpAlive: [1, `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local expiry = redis.call('ZSCORE', KEYS[1], ARGV[1])
if expiry and tonumber(expiry) > now then return 1 end
return 0`],
  /** KEYS: the live zset. ARGV: instance. */
  mcpLeave: [1, `
return redis.call('ZREM', KEYS[1], ARGV[1])`],
  /**
   * KEYS: task, all tasks, the client's tasks, bytes of all tasks, bytes of the client's tasks.
   * ARGV: task JSON, ttlMs, expiresAt, now, maxTasks, maxPerClient, taskId, weight, maxBytes,
   * maxBytesPerClient (-1: unbounded). 0: stored; 1: too many tasks; 2: too many for the client;
   * 3: too many bytes; 4: too many bytes for the client.
   */
  mcpTaskCreate: [5, `${TASK_BOOKS}
local now = ARGV[4]
prune(KEYS[2], KEYS[4], now)
prune(KEYS[3], KEYS[5], now)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[5]) then return 1 end
if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[6]) then return 2 end
local weight = tonumber(ARGV[8])
local perClient = tonumber(ARGV[10])
if perClient >= 0 and held(KEYS[5]) + weight > perClient then return 4 end
local all = tonumber(ARGV[9])
if all >= 0 and held(KEYS[4]) + weight > all then return 3 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
for i = 2, 3 do
  redis.call('ZADD', KEYS[i], ARGV[3], ARGV[7])
  weigh(KEYS[i + 2], ARGV[7], weight)
  keep(KEYS[i], ARGV[2])
  keep(KEYS[i + 2], ARGV[2])
end
return 0`],
  /**
   * KEYS: task, all tasks, the client's tasks, bytes of all tasks, bytes of the client's tasks.
   * ARGV: the JSON read, the JSON to write, taskId, its weight, maxBytes, maxBytesPerClient (-1:
   * unbounded), now, 1 to check the byte bounds. 1 when replaced; 0 when it changed meanwhile or
   * is gone; 2: too many bytes; 3: too many bytes for the client (nothing written).
   */
  mcpTaskSwap: [5, `${TASK_BOOKS}
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
local now = ARGV[7]
prune(KEYS[2], KEYS[4], now)
prune(KEYS[3], KEYS[5], now)
local weight = tonumber(ARGV[4])
if ARGV[8] == '1' then
  local perClient = tonumber(ARGV[6])
  local mine = weight - tonumber(redis.call('HGET', KEYS[5], ARGV[3]) or '0')
  if perClient >= 0 and mine > 0 and held(KEYS[5]) + mine > perClient then return 3 end
  local all = tonumber(ARGV[5])
  local more = weight - tonumber(redis.call('HGET', KEYS[4], ARGV[3]) or '0')
  if all >= 0 and more > 0 and held(KEYS[4]) + more > all then return 2 end
end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
-- A task pruned already (expired) has no weight left to change.
for i = 2, 3 do
  if redis.call('ZSCORE', KEYS[i], ARGV[3]) then weigh(KEYS[i + 2], ARGV[3], weight) end
end
return 1`],
  ...INBOX_SOURCES
} as const

export type ScriptName = keyof typeof SOURCES

/** In the shape of ioredis' `scripts` option. */
export const SCRIPTS: Record<ScriptName, { lua: string, numberOfKeys: number }> = Object.fromEntries(
  Object.entries(SOURCES).map(([name, [keys, lua]]) => [name, { lua, numberOfKeys: keys }])
) as Record<ScriptName, { lua: string, numberOfKeys: number }>
