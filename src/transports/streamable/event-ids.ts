import type { ServerResponse } from 'node:http'
import type { JsonRpcId, JsonRpcMessage } from '../../jsonrpc/messages.js'
import type { EventReplay, SessionEventStore, StoredEvent } from '../../scale/ports.js'
import type { StreamSet } from '../http/sse-stream.js'

// The shapes of Streamable HTTP's per-session state and the small rules about
// them; the routing itself is StreamableChannel (channel.ts).

/** Reconnection delay announced in priming events (ms): how long a client waits before resuming. */
export const PRIMING_RETRY_MS = 1000
/** The first protocol revision whose clients understand priming events (empty data, an id). */
export const PRIMING_SINCE = '2025-11-25'
/** Stream id of the standalone GET stream; request streams count up from 1. */
export const STANDALONE = '0'
/** An event id: `{stream}_{n}`, the stream's id and a count per session. */
export const EVENT_ID = /^(\d{1,15})_\d{1,15}$/

/**
 * Where a stream's events are written: an event stream on an HTTP response, or, when a client
 * resumed the stream on another instance, the bus to that instance (scale-out/attachments.ts).
 */
export interface LiveStream {
  message: (json: string, id?: string) => boolean
  prime: (id: string, retryMs: number) => boolean
  end: () => void
}

/** What every session of one Streamable HTTP endpoint shares. */
export interface StreamResources {
  /** Undefined when `eventStoreSize` is 0: no event ids, no resumption. */
  store: SessionEventStore | undefined
  streams: StreamSet
  maxQueuedBytes: number
  /** A store that failed to record or replay; the event itself was still written live. */
  onStoreError: (error: unknown) => void
}

/**
 * One logical event stream: the standalone GET stream, or the stream that
 * answers one POSTed request. Its HTTP connection (`live`) may come and go
 * (dropped, closed by the server mid-call, replaced by a resuming GET) while
 * the logical stream and its event ids go on.
 */
export interface EventChannel {
  readonly id: string
  /** The request a request stream answers (recorded with its priming events). */
  readonly requestId?: JsonRpcId
  live: LiveStream | undefined
  /** Events written while a resuming GET waits for the store's replay. */
  held: StoredEvent[] | undefined
  /** Answered (or abandoned): a resuming GET ends once it has replayed. */
  complete: boolean
}

/**
 * What a request answered as JSON needs to become an event stream later: its
 * Fastify reply, not yet sent (a structural type, so tests can hand in a fake).
 */
export interface UpgradableReply {
  readonly raw: ServerResponse
  hijack: () => unknown
  getHeaders: () => Record<string, number | string | string[] | undefined>
}

export interface RequestEntry {
  /** The event stream answering the request; undefined while the answer is a JSON body. */
  channel: EventChannel | undefined
  /** A JSON answer collects the response here. */
  response: string | undefined
  /** The error code of the collected response, when it is an error. */
  errorCode: number | undefined
  /** The collected response says the server could not answer now (see protocol/retry-later.ts): 503. */
  retryLater?: boolean
  /**
   * A client that takes both JSON and an event stream: the reply to turn into
   * an event stream if anything but the response comes first (see {@link StreamableChannel.streamOf}).
   * Undefined once used, and for answers fixed as JSON or as a stream from the start.
   */
  reply: UpgradableReply | undefined
}

/** A resume the route has looked up but not attached yet. */
export interface ResumePlan {
  channel: EventChannel | undefined
  replay: EventReplay
}

export function isResponseTo (message: JsonRpcMessage, id: JsonRpcId): boolean {
  return ('result' in message || 'error' in message) && message.id === id
}

/**
 * The client is gone (or the response is over): nothing can be written to `res`
 * any more. A null socket is not gone: a pipelined response gets its socket later.
 */
export function gone (res: ServerResponse): boolean {
  return res.destroyed || res.writableEnded || res.socket?.destroyed === true
}
