import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify'
import { UnknownSessionError } from '../../errors.js'
import type { ClassifiedMessage, JsonRpcId } from '../../jsonrpc/messages.js'
import type { ProtocolServer } from '../../protocol/protocol-server.js'
import type { Principal } from '../../protocol/principal.js'
import type { Session } from '../../protocol/session.js'
import { MemoryEventStore } from '../../scale/memory/event-store.js'
import { EventBytes } from '../../scale/event-bytes.js'
import type { EventStore, SessionEventStore } from '../../scale/ports.js'
import { startIdleSweep } from '../http/idle.js'
import type { HttpPlumbing } from '../http/plumbing.js'
import { StreamableChannel } from '../streamable/channel.js'
import type { StreamResources } from '../streamable/event-ids.js'

/** A Streamable HTTP session as its endpoint holds it. */
export interface StreamableEntry {
  readonly session: Session
  readonly channel: StreamableChannel
}

/** The session table of the Streamable HTTP endpoint, as the directory sees it. */
export interface StreamableTable {
  /** What every channel of the endpoint shares. */
  readonly env: StreamResources
  get: (id: string) => StreamableEntry | undefined
  /** The endpoint answers for the session from now on, until it closes. */
  add: (entry: StreamableEntry) => void
}

/** Legacy SSE: where a POST forwarded from another instance is handled, on the instance holding the stream. */
export interface SseReceiver {
  receiveForwarded: (session: Session, json: string, principal: Principal | undefined, request: FastifyRequest) => void
}

/**
 * Where the sessions of the HTTP transports live besides the transports' own tables, and how far
 * their life reaches: this instance alone ({@link LocalDirectory}), or every instance of a
 * scale-out deployment (`ClusterDirectory`, in cluster.ts). The routes ask it and never ask
 * whether scale-out is on; this list is what scale-out changes in them.
 *
 * The methods on the path of every message (`used`, `started`, `syncing`, `routeAway`,
 * `keepsCancel`) are synchronous here on one instance and allocate nothing: the single-instance
 * hot path pays a call. Where a cluster may have to act and one instance never does
 * (`routeAway`, `resumeElsewhere`, `openStream0`), undefined means "not mine: do it here".
 */
export interface SessionDirectory {
  // ---- both HTTP transports ------------------------------------------------------

  /**
   * Starts expiring idle sessions; returns the stop. One instance: a sweep closes them. A cluster:
   * the store's TTL expires them, and the node evicts what is idle here.
   */
  startIdleExpiry: () => () => void
  /** A message for `session` was received here: a cluster extends the life of its record. */
  used: (session: Session) => void
  /**
   * Before a request on a Streamable HTTP session of the table: a cluster drops its copy when it
   * has been idle here past `idleTimeoutMs` (the sweep would have), and the request then rebuilds
   * it from its record (`missing`): the record may have expired meanwhile, or lived on through use
   * on other instances. True when it dropped the copy. One instance: never (its sweep decides).
   */
  evictIfIdle: (session: Session) => boolean
  /** A request just started on `session`: a cancel that arrived first (another instance got it) applies now. */
  started: (session: Session, requestId: JsonRpcId) => void
  /** The client ends its session (DELETE): closed here, or everywhere before the answer. */
  end: (session: Session, reason: string) => Promise<void> | void

  // ---- Streamable HTTP ------------------------------------------------------------

  /** The event store of the endpoint's sessions (undefined: no event ids, no resumption). */
  readonly events: SessionEventStore | undefined
  /** The event store failed to record or replay (the event itself was still written live). */
  readonly eventsFailed: (error: unknown) => void
  /** The channel of a session opened on the endpoint. */
  channel: (env: StreamResources) => StreamableChannel
  /**
   * A session id the endpoint's table does not hold: the session rebuilt from its shared record
   * (the first request of a session on this instance), or the error to answer.
   */
  missing: (id: string, table: StreamableTable) => Promise<StreamableEntry>
  /**
   * `initialize` succeeded: the session joins the table, known wherever the client's next request
   * may land before its id goes out, and its client has `sessionInitTimeoutMs` to come back.
   */
  initialized: (entry: StreamableEntry, table: StreamableTable) => Promise<void> | void
  /**
   * Before a request that changes the session for good (log level, subscriptions): the latest
   * state of the session, when other instances may have changed it; undefined when nothing is
   * shared. {@link synced} then follows the request.
   */
  syncing: (session: Session, method: string) => Promise<void> | undefined
  /** After such a request: what it changed reaches the other instances before the client hears the answer. */
  synced: (session: Session) => Promise<void>
  /**
   * A notification or response that belongs to another instance (the reply to its server
   * request, the cancel of a request it runs): sent there. Undefined: handled here.
   */
  routeAway: (session: Session, classified: ClassifiedMessage) => Promise<void> | undefined
  /** A GET resuming a stream this instance does not write (stream 0, another instance's request stream); undefined: resumed here. */
  resumeElsewhere: (request: FastifyRequest, reply: FastifyReply, entry: StreamableEntry, lastEventId: string) => Promise<FastifyReply> | undefined
  /** A GET opening stream 0 after the session's stream-0 claim; undefined: the channel's standalone stream, here. */
  openStream0: (request: FastifyRequest, reply: FastifyReply, entry: StreamableEntry) => Promise<FastifyReply> | undefined

  // ---- legacy SSE -----------------------------------------------------------------

  /** A legacy SSE session opened here, before its stream starts: made known to the other instances. */
  sseOpened: (session: Session, request: FastifyRequest, receiver: SseReceiver) => Promise<void> | void
  /**
   * A POST for a session whose stream is not here: forwarded to the instance holding it (resolves
   * once it has it), or the error to answer.
   */
  forward: (sessionId: string, request: FastifyRequest) => Promise<void>
  /** A cancel for a request `session` is not running, kept for when it starts: true when nothing else is to be done. */
  keepsCancel: (session: Session, classified: ClassifiedMessage) => boolean
}

/** What the directory of one instance reads from the options. */
export interface LocalDirectoryOptions {
  readonly stateless: boolean
  readonly eventStore?: EventStore | undefined
  readonly eventStoreSize: number
  readonly eventStoreBytes: number
  readonly eventStoreBytesPerClient: number
  readonly eventStoreBytesTotal: number
  readonly idleTimeoutMs: number
}

/** The built-in store, bounded per session, per client and overall; undefined when `eventStoreSize` is 0. */
function memoryEvents (options: LocalDirectoryOptions, core: ProtocolServer): MemoryEventStore | undefined {
  if (options.eventStoreSize === 0) return undefined
  const bytes = new EventBytes(options.eventStoreBytesTotal, options.eventStoreBytesPerClient, (limit) => { core.telemetry.limitRefusal(limit) })
  return new MemoryEventStore(options.eventStoreSize, options.eventStoreBytes, bytes)
}

/** One instance: the transports' own tables are the whole story. */
export class LocalDirectory implements SessionDirectory {
  readonly events: SessionEventStore | undefined
  readonly eventsFailed: (error: unknown) => void
  private readonly core: ProtocolServer
  private readonly http: HttpPlumbing
  private readonly idleTimeoutMs: number

  constructor (core: ProtocolServer, options: LocalDirectoryOptions, http: HttpPlumbing, log: FastifyBaseLogger) {
    this.core = core
    this.http = http
    this.idleTimeoutMs = options.idleTimeoutMs
    // A stateless session lives for one POST: there is nothing to resume.
    this.events = options.stateless ? undefined : options.eventStore ?? memoryEvents(options, core)
    this.eventsFailed = (error) => { log.error({ err: error }, 'MCP event store failed') }
  }

  startIdleExpiry (): () => void {
    return startIdleSweep(this.core, this.idleTimeoutMs)
  }

  used (): void {}

  evictIfIdle (): boolean {
    return false
  }

  started (): void {}

  end (session: Session, reason: string): void {
    session.close(reason)
  }

  channel (env: StreamResources): StreamableChannel {
    return new StreamableChannel(env)
  }

  async missing (): Promise<never> {
    throw new UnknownSessionError()
  }

  initialized (entry: StreamableEntry, table: StreamableTable): void {
    table.add(entry)
    this.http.limits.expectClient(entry.session)
  }

  syncing (): undefined {
    return undefined
  }

  /** Never called: {@link syncing} shares nothing. */
  async synced (): Promise<void> {}

  routeAway (): undefined {
    return undefined
  }

  resumeElsewhere (): undefined {
    return undefined
  }

  openStream0 (): undefined {
    return undefined
  }

  sseOpened (): void {}

  async forward (): Promise<never> {
    throw new UnknownSessionError()
  }

  keepsCancel (): boolean {
    return false
  }
}
