// The scripts of the inboxes' byte bound, and of the control streams' trim by age (see scripts.ts
// for how scripts are defined and run): each touches one stream and, for an inbox, its byte
// count, which share a slot (keys.ts).

/**
 * Appends `fields` to an instance's inbox unless it holds `maxBytes` bytes unread already (one
 * message larger than that still goes into an empty inbox: it is bounded by `bodyLimit`). The
 * bytes are those of the field values, counted in `bytesKey` and given back by the reader
 * (`mcpInboxAck`). An inbox is never trimmed by length: each entry is a message someone was
 * answered for (a legacy POST answered 202), so a full inbox refuses instead. Either key created
 * here gets `ttl` (the inbox's owner extends both as it beats): nothing outlives its owner.
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

/** Name: [number of keys, Lua source]. */
export const INBOX_SOURCES = {
  /**
   * KEYS: an inbox, its byte count, the sender's own byte count on that shard. ARGV: maxBytes,
   * ttlMs, 1 if the inbox's owner must be known to beat (its byte count exists: see mcpBeat and
   * mcpInboxKeep) or 0 when the sender knows it alive, then the entry's field/value pairs. The
   * owner counts as unknown only where the sender itself is known: a Redis back empty knows no
   * instance until each beats again, and a write the sender queued meanwhile (or made before it
   * noticed the restart) must not be dropped for it. The entry id; 0 when the owner is unknown (nothing
   * written: nobody would read it, and a client naming a made-up instance must not create keys);
   * nil when the inbox is full (see INBOX_ADD). Checked in the write rather than in a round trip
   * before it, and on the byte count (in the inbox's slot) rather than the live set: a write
   * queued while Redis stalled runs when every expiry in the live set may have passed, before the
   * beats that follow the stall.
   */
  mcpInboxAdd: [3, INBOX_ADD + `
if ARGV[3] == '1' and redis.call('EXISTS', KEYS[2]) == 0 and redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
return inboxAdd(KEYS[1], KEYS[2], tonumber(ARGV[1]), tonumber(ARGV[2]), { unpack(ARGV, 4) })`],
  /**
   * KEYS: this instance's inbox on a shard, its byte count. ARGV: the id after the newest entry
   * read, the bytes read. Deletes what the reader has read (every entry before that id) and gives
   * its bytes back. Once the inbox is empty its count is 0 again, so a count gone wrong (entries
   * lost to a failover or a restart, an entry written again after one) starts over there. The
   * stream stays, empty, for its last id; the TTLs end both once their owner stops beating.
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
   * KEYS: this instance's inbox on a shard, its byte count. ARGV: TTL (ms). Extends both, and
   * creates the count (0) if it is missing: it says the inbox's owner beats (mcpInboxAdd).
   */
  mcpInboxKeep: [2, `
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('SET', KEYS[2], '0', 'NX')
return redis.call('PEXPIRE', KEYS[2], ARGV[1])`],
  /**
   * KEYS: a stream. ARGV: age (ms). Deletes the entries older than that on Redis' clock (their ids
   * are Redis times): what no live reader can still need. The stream itself stays, empty: it keeps
   * its last id, so later entries sort after every reader's cursor even if the clock steps back.
   */
  mcpTrimOlder: [1, `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return redis.call('XTRIM', KEYS[1], 'MINID', now - tonumber(ARGV[1]))`]
} as const
