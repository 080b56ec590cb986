import type { JsonRpcId } from '../../jsonrpc/messages.js'
import type { EventBytes } from '../event-bytes.js'
import type { EventReplay, SessionEventStore, StoredEvent } from '../ports.js'
import { bounded, type RedisPort } from './client.js'
import type { Keys } from './keys.js'

export interface RedisEventStoreOptions {
  /** Events kept per session (`eventStoreSize`). */
  maxEvents: number
  /** Bytes of event data kept per session (`eventStoreBytes`). */
  maxBytes: number
  /** Lifetime of an idle session's events (`idleTimeoutMs`); 0 = until the session is deleted. */
  ttlMs: number
  timeoutMs: number
  /**
   * What the sessions of one client and all sessions keep, as this instance counts them (see
   * {@link EventBytes}); undefined: per session only.
   */
  bytes?: EventBytes | undefined
}

/**
 * Request-stream events of every session, shared by the instances so that a client can resume a
 * stream on any of them. One Redis stream per session holds the events of all its request streams
 * (`d` data, `i` event id, `s` stream), bounded like MemoryEventStore: at most `maxEvents` events
 * and `maxBytes` bytes per session, oldest evicted first, inside the append script (exact, unlike
 * MAXLEN ~, which cannot count bytes). One log per session rather than one per request stream:
 * a session making thousands of calls would otherwise hold thousands of logs until it idles out.
 * Stream 0 has its own log, written by the bus's deliver0 (its positions are Redis ids).
 */
export class RedisEventStore implements SessionEventStore {
  constructor (private readonly redis: RedisPort, private readonly keys: Keys, private readonly options: RedisEventStoreOptions) {}

  async append (sessionId: string, streamId: string, event: StoredEvent, client?: string): Promise<void> {
    const { maxEvents, ttlMs, timeoutMs } = this.options
    const bounds = client === undefined ? undefined : this.options.bytes
    // The log's bound for this append: the session's own, or less when its client's share (or
    // everyone's) leaves less; the script drops the session's oldest events first, then this one.
    const maxBytes = bounds === undefined || client === undefined
      ? this.options.maxBytes
      : bounds.room(sessionId, client, Buffer.byteLength(event.data, 'utf8'), this.options.maxBytes)
    const held = await bounded(this.redis, timeoutMs, async () => await this.redis.script('mcpEventAppend',
      [this.keys.requestLog(sessionId), this.keys.logBytes(sessionId)],
      [event.data, event.id, streamId, maxEvents, maxBytes, ttlMs, event.requestId === undefined ? '' : JSON.stringify(event.requestId)]))
    bounds?.settle(sessionId, Number(held))
  }

  /** This instance's copy of the session closed: its share stops counting here; the log lives on for the others. */
  release (sessionId: string): void {
    this.options.bytes?.release(sessionId)
  }

  async replayAfter (sessionId: string, lastEventId: string): Promise<EventReplay | undefined> {
    // A resume is rare and the log is bounded: read it whole, as the memory store walks its map.
    const entries = await bounded(this.redis, this.options.timeoutMs, async () => await this.redis.xrange(this.keys.requestLog(sessionId), '-', '+'))
    let streamId: string | undefined
    const after: StoredEvent[] = []
    // Request ids by stream (on priming events, so before the last event id, or at it).
    const requests = new Map<string, string>()
    for (const [, fields] of entries) {
      const [, data = '', , id = '', , stream = '', , request] = fields
      if (request !== undefined) requests.set(stream, request)
      if (streamId === undefined) {
        if (id === lastEventId) streamId = stream
      } else if (stream === streamId && data !== '') {
        // Priming events carry no message: nothing to deliver again.
        after.push({ id, data })
      }
    }
    if (streamId === undefined) return undefined
    const request = requests.get(streamId)
    return { streamId, events: after, ...(request === undefined ? {} : { requestId: JSON.parse(request) as JsonRpcId }) }
  }

  async deleteSession (sessionId: string): Promise<void> {
    this.options.bytes?.release(sessionId)
    await bounded(this.redis, this.options.timeoutMs, async () => await this.redis.del([this.keys.requestLog(sessionId), this.keys.logBytes(sessionId)]))
  }
}
