import type { JsonRpcId } from '../jsonrpc/messages.js'
import type { LogLevel } from '../protocol/session.js'
import type { Principal, PrincipalIdentity } from '../protocol/principal.js'

// The ports of the scale-out engine (DESIGN: Transports -> Scale -> Protocol; the protocol core
// never imports this folder). Each port has an in-process implementation (one instance, or several
// "instances" in one process for the routing tests) and a Redis one (src/scale/redis/). The
// transports talk to these ports only, so nothing in them knows whether a peer is a Map or Redis.

/**
 * What another instance needs to serve a session it did not open: enough to rebuild a `Session`
 * that answers requests exactly as the opening instance would. Never a credential: the identity
 * only (a request still presents its own credential, verified where it lands).
 */
export interface SessionRecord {
  readonly id: string
  /** Which endpoint opened it: a Streamable HTTP id is unknown to the legacy SSE endpoint and back. */
  readonly kind: 'streamable' | 'sse'
  /** The identity the session is bound to; absent when auth is off. */
  readonly principal?: PrincipalIdentity
  readonly protocolVersion: string
  readonly clientInfo?: Record<string, unknown>
  readonly clientCapabilities: Record<string, unknown>
  readonly logLevel?: LogLevel
  readonly subscriptions: readonly string[]
}

export interface StoredSession {
  readonly record: SessionRecord
  /**
   * The instance holding the session's stream 0 (Streamable HTTP: the standalone GET stream;
   * legacy SSE: the event stream, which also executes the session's POSTs). Absent before any.
   */
  readonly gateway?: string
}

/** Session records shared by every instance. Idle expiry is the store's TTL. */
export interface SessionStore {
  create: (record: SessionRecord, ttlMs: number) => Promise<void>
  get: (id: string) => Promise<StoredSession | undefined>
  /** False when the session is gone (deleted or expired). */
  update: (id: string, patch: Partial<Omit<SessionRecord, 'id' | 'kind' | 'principal'>>) => Promise<boolean>
  /** Extends the TTL; false when the session already expired. */
  touch: (id: string, ttlMs: number) => Promise<boolean>
  /**
   * Makes `instance` the holder of stream 0, atomically against {@link Bus.deliver0}: every stream-0
   * message at or before `tail` went to the previous holder, every later one goes to `instance`.
   * Undefined when the session is gone.
   */
  claimGateway: (id: string, instance: string) => Promise<GatewayClaim | undefined>
  /**
   * After Redis lost its data (restarted empty): puts back the record of a session an instance
   * still holds, if no other instance has yet, with `gateway` as its stream-0 holder unless one
   * claimed it since. Never replaces what is there: every instance holding a copy calls this.
   */
  restore: (record: SessionRecord, ttlMs: number, gateway: string | undefined) => Promise<void>
  /** Forgets the record and every event log of the session. */
  delete: (id: string) => Promise<void>
  close: () => Promise<void>
}

export interface GatewayClaim {
  /** The instance that held stream 0 before, if any (it is told to release it). */
  readonly previous: string | undefined
  /** Position of the newest message in the session's stream-0 log at the claim (`'0'` when empty). */
  readonly tail: string
}

/** What an inbox holds of a forwarded POST's caller: its principal without the claims. */
export type ForwardedPrincipal = Omit<Principal, 'claims'>

/** Point-to-point messages between instances (inbox of one instance). */
export type DirectMessage =
  /** A client's reply to a server-to-client request, for the instance that sent the request. */
  | { type: 'response', session: string, json: string }
  /**
   * A legacy SSE POST received by a non-owner, for the owner to dispatch (in POST order), with what
   * the receiver verified of its caller: the identity, scopes and expiry, never the token's claims
   * (the owner has those of the same identity, from the GET that opened the stream).
   */
  | { type: 'forward', session: string, json: string, principal?: ForwardedPrincipal }
  /** Resume of a request stream held by its executor: replay after `after`, then forward to `to`. */
  | { type: 'attach', session: string, stream: string, after: string, to: string }
  /** Someone else now holds the session's stream 0: end yours without ending the session. */
  | { type: 'release', session: string }
  /** A stream-0 message for the gateway to write live (the session's log already holds it at `position`). */
  | { type: 'event', session: string, position: string, json: string }
  /**
   * An event of a request stream forwarded to the instance a resuming client is attached to.
   * `gone`: the executor does not hold the session (nothing will come from it; the request is not running there).
   */
  | { type: 'stream-event', session: string, stream: string, eventId: string, json: string, last: boolean, gone?: boolean }

/** Messages for every instance, ephemeral (no history kept for late joiners). */
export type ControlMessage =
  /** `notifications/cancelled` that landed away from the executing instance. */
  | { type: 'cancel', session: string, requestId: string | number, reason: string }
  /** The session ended (DELETE, idle expiry): abort its handlers, end its streams, drop caches. */
  | { type: 'end', session: string, reason: string }
  /** The record changed (log level, subscriptions): drop cached copies. */
  | { type: 'changed', session: string }
  /** `tasks/cancel` of a task whose work runs on another instance: its handler's signal aborts there. */
  | { type: 'task-cancel', taskId: string }

/** Notifications for every session (and 2026 listen stream) on every instance, kept as history. */
export type FanoutMessage =
  | { type: 'broadcast', json: string }
  | { type: 'resource-updated', uri: string, json: string }
  /**
   * A registry list changed on the sending instance and now has `digest` (`Registry.digest`). The
   * instances usually all make the same change: each announces a (list, digest) once.
   */
  | { type: 'list-changed', list: 'tools' | 'resources' | 'prompts', digest: string, json: string }

export interface Envelope<M> {
  readonly from: string
  /** Position in the bus (a Redis stream id, or a counter in memory): orders messages of one log. */
  readonly position: string
  readonly message: M
}

export interface WriteOptions {
  /**
   * A request is waiting on this write and is answered by its outcome (a legacy POST forwarded,
   * a reply or a cancel routed away). While Redis is unreachable such a write is refused after
   * `redisTimeoutMs` (503) and never queued, so a request answered 503 cannot take effect later.
   * Once handed to a live connection it is awaited to the end: its outcome is unknown until Redis
   * answers (a stall), and a write re-sent after a reconnect is stored once.
   */
  readonly forRequest?: boolean
}

/**
 * Instance-to-instance messaging. Every `Promise` resolves once the message is stored (the
 * ordering point), never when it is handled.
 */
export interface Bus {
  readonly self: string
  /**
   * To one instance's inbox. A message for an instance that is not known to run (never did, or
   * stopped beating a while ago) is dropped (resolves, nothing written): nothing would read it. Rejects with ScaleUnavailableError when the inbox
   * holds its bound of unread bytes.
   */
  send: (to: string, message: DirectMessage, options?: WriteOptions) => Promise<void>
  control: (message: ControlMessage, options?: WriteOptions) => Promise<void>
  fanout: (message: FanoutMessage) => Promise<string>
  /**
   * Appends a stream-0 message to the session's log and hands it to the session's gateway, as one
   * atomic step (a gateway move is linearized against every delivery). Resolves with its position
   * in the log, or undefined when no gateway ever held the session (the message is dropped, as on
   * one instance before any GET).
   */
  deliver0: (session: string, json: string) => Promise<string | undefined>
  /** The session's stream-0 log after `position` (exclusive), oldest first, for a resuming stream 0. */
  log0After: (session: string, position: string) => Promise<Array<{ position: string, json: string }>>
  /**
   * Whether an instance has beaten its heartbeat recently, from this instance's view of the live
   * set (refreshed at each of its own beats, so at most one beat old): cheap, for hot paths. An
   * instance started since the last refresh is missing from it: confirm a false with {@link checkAlive}.
   */
  alive: (instance: string) => boolean
  /**
   * Whether an instance is alive now, read from the shared registry (Redis: its heartbeat has not
   * expired on Redis's clock). Refreshes the view {@link alive} answers from.
   */
  checkAlive: (instance: string) => Promise<boolean>
  /**
   * Calls `onDead` once `instance` is dead: it left (closed), or its heartbeat expired (three
   * beats missed, on Redis' clock), as read by one of this instance's beats. Nothing is decided
   * while the registry cannot be read, nor for three beats after this instance found itself
   * unregistered (a Redis restarted empty forgets every instance until it beats again: that must
   * not read as deaths). Returns a function that stops watching.
   */
  watchDeath: (instance: string, onDead: () => void) => () => void
  onDirect: (handler: (envelope: Envelope<DirectMessage>) => void) => void
  onControl: (handler: (envelope: Envelope<ControlMessage>) => void) => void
  onFanout: (handler: (envelope: Envelope<FanoutMessage>) => void) => void
  /** Fan-out history after `position` (exclusive), oldest first, for a resuming stream 0. */
  fanoutAfter: (position: string) => Promise<Array<Envelope<FanoutMessage>>>
  /**
   * Position of the newest fan-out message this instance has handed to its handlers (at start: the
   * bus's tail). A stream 0 opened now has been sent everything up to it.
   */
  fanoutCursor: () => string
  /**
   * Settles once every message this instance sent so far is stored, or after `redisTimeoutMs` while
   * the store is away; undefined when none is on its way. A request is answered only then (causal
   * order across instances). Absent where a message is stored as it is sent (in memory).
   */
  written?: () => Promise<void> | undefined
  close: () => Promise<void>
}

/** One event of a stream, as the transport wrote it and an {@link EventStore} records it. */
export interface StoredEvent {
  /** The SSE `id` the event was (or would have been) written with. */
  readonly id: string
  /** The serialized JSON-RPC message; empty for a priming event (an id and no message). */
  readonly data: string
  /**
   * The id of the request the stream answers, on a request stream's priming event: another
   * instance can then answer that request with an error if the instance executing it dies.
   */
  readonly requestId?: JsonRpcId
}

export interface EventReplay {
  /** The stream the last event id belongs to. */
  readonly streamId: string
  /** Events of that stream recorded after the last event id, oldest first. */
  readonly events: readonly StoredEvent[]
  /** The request the stream answers, when its priming event recorded it (and was not evicted). */
  readonly requestId?: JsonRpcId
}

/**
 * Resumability for Streamable HTTP: every event written on a session's event
 * streams is recorded here, so a client whose stream dropped (or that the
 * server closed mid-call) can reconnect with `Last-Event-ID` and receive what
 * it missed. The transport makes up the event ids; the store treats them as
 * opaque strings. Methods may answer synchronously or with a promise, so a
 * shared backend (Redis, a database) can sit behind the same interface.
 */
export interface EventStore {
  /** Records one event of `streamId`. Events arrive in the order they were written. */
  append: (sessionId: string, streamId: string, event: StoredEvent) => void | Promise<void>
  /**
   * The events after `lastEventId` on its stream; undefined when the id is
   * unknown to the session (never written, evicted, or the session's events were deleted).
   */
  replayAfter: (sessionId: string, lastEventId: string) => EventReplay | undefined | Promise<EventReplay | undefined>
  /** Forgets a session's events (the session ended). */
  deleteSession: (sessionId: string) => void | Promise<void>
}

/**
 * The event store as the Streamable HTTP channels call it. A built-in store (in memory, Redis) also
 * bounds what the sessions of one client keep, and all sessions (`eventStoreBytesPerClient`,
 * `eventStoreBytesTotal`), so it takes the session's client with each event, and hears when a copy
 * of a shared session closes here. A user's {@link EventStore} fits as it is: it ignores both.
 */
export interface SessionEventStore extends EventStore {
  /** `client`: who the session counts against (`Session.client`); undefined: counted per session only. */
  append: (sessionId: string, streamId: string, event: StoredEvent, client?: string) => void | Promise<void>
  /** This process no longer serves the session (its copy closed; the shared events live on): stop counting them. */
  release?: (sessionId: string) => void
}

/**
 * One instance's share of the engine: what the transports are given (the plugin builds it from
 * `scaleOut`; tests build in-process ones with `MemoryHub.engine()`). Whoever builds it closes it,
 * after the app.
 */
export interface ScaleEngine {
  readonly sessions: SessionStore
  readonly bus: Bus
  /**
   * Events of request streams (Streamable HTTP), shared, so that a stream can be replayed on any
   * instance. Event ids name their stream and its executor (`{instance}.{k}_{n}`).
   */
  readonly events: SessionEventStore
  /**
   * Called after the shared state was lost (Redis came back empty): each instance re-creates the
   * records and stream claims of the sessions it holds. Absent where it cannot happen (in memory).
   */
  readonly onRedisRestart?: (handler: () => void) => void
  /**
   * Whether the shared state was lost recently enough that a session missing from the store may
   * be a live one whose holders have not re-created it yet (a miss is then 503, not 404). Waits
   * for the check that follows a reconnect. Absent where state cannot be lost.
   */
  readonly restartedRecently?: () => Promise<boolean>
  /**
   * Calls `handler` with the name of a bound (`scaleOut.inboxBytes`, ...) each time the engine
   * refuses a write past it: the node counts it in telemetry (`fastify_mcp.server.limit.refusals`).
   * Absent where nothing is bounded (in memory).
   */
  readonly onLimitRefusal?: (handler: (limit: string) => void) => void
  close: () => Promise<void>
}

/** The part of a pino / Fastify logger the engine writes to (Fastify's `app.log` fits). */
export interface ScaleLogger {
  info: (fields: object, message: string) => void
  warn: (fields: object, message: string) => void
  error: (fields: object, message: string) => void
}
