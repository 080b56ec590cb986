import type { OutgoingHttpHeaders, ServerResponse } from 'node:http'
import type { JsonRpcId, JsonRpcMessage } from '../../jsonrpc/messages.js'
import { retriesLater } from '../../protocol/retry-later.js'
import type { Session, SessionChannel } from '../../protocol/session.js'
import type { EventReplay, StoredEvent } from '../../scale/ports.js'
import { SseStream } from '../http/sse-stream.js'
import {
  EVENT_ID, PRIMING_RETRY_MS, PRIMING_SINCE, STANDALONE, gone, isResponseTo,
  type EventChannel, type LiveStream, type RequestEntry, type ResumePlan, type StreamResources, type UpgradableReply
} from './event-ids.js'
import { SoloMap } from '../../util/solo-map.js'

export type { StreamResources } from './event-ids.js'

/**
 * The per-session routing state of Streamable HTTP, and the session's
 * channel: a message produced while handling request R goes on R's POST
 * stream (or into R's JSON answer, which becomes a stream when the client
 * takes one and anything but the response comes first), everything else on
 * the standalone GET stream. With an event store every event gets an id and
 * is recorded, so any stream can be resumed with `Last-Event-ID`.
 *
 * With several instances the session's channel is a `GatewayChannel` (transports/scale-out/),
 * which overrides the protected members that decide where stream 0 goes and how streams are named.
 */
export class StreamableChannel implements SessionChannel {
  readonly transport = 'streamable'
  protected readonly env: StreamResources
  protected session!: Session
  /** The requests being answered, by id: one at a time on most sessions, exactly one on a 2026-07-28 request's (see SoloMap). */
  private readonly requests = new SoloMap<JsonRpcId, RequestEntry>()
  /** Request streams by id, made at the first one: most requests are answered as JSON, and a 2026-07-28 request's channel lives for one call. */
  private inflight: Map<string, EventChannel> | undefined
  protected readonly standalone: EventChannel = { id: STANDALONE, live: undefined, held: undefined, complete: false }
  /** Standalone events are kept only once a client has opened that stream: before, nobody could resume it. */
  private standaloneUsed = false
  private nextStream = 1
  private nextEvent = 1

  constructor (env: StreamResources) {
    this.env = env
  }

  /** Completes the two-way link (the session needs its channel at construction). */
  bind (session: Session): void {
    this.session = session
  }

  /** True when a request with this id is being answered on this session. */
  has (requestId: JsonRpcId): boolean {
    return this.requests.has(requestId)
  }

  /** Priming and mid-call closing need a store and a client that knows priming events. */
  protected get resumable (): boolean {
    return this.env.store !== undefined && (this.session.protocolVersion ?? '') >= PRIMING_SINCE
  }

  // ---- SessionChannel --------------------------------------------------------

  send (message: JsonRpcMessage, relatedRequestId?: JsonRpcId): void {
    this.route(JSON.stringify(message), message, relatedRequestId)
  }

  /** `message` is given when it may be the response to `relatedRequestId` (a serialized notification never is). */
  private route (json: string, message: JsonRpcMessage | undefined, relatedRequestId: JsonRpcId | undefined): void {
    const entry = relatedRequestId === undefined ? undefined : this.requests.get(relatedRequestId)
    if (entry === undefined || relatedRequestId === undefined) {
      this.sendStandalone(json)
      return
    }
    const final = message !== undefined && isResponseTo(message, relatedRequestId)
    let channel = entry.channel
    if (channel === undefined) {
      // The response with nothing before it: the JSON body (the common case, and the cheap one).
      if (final) {
        entry.response = json
        entry.errorCode = 'error' in message ? message.error.code : undefined
        entry.retryLater = retriesLater(message)
        return
      }
      channel = this.streamOf(entry, relatedRequestId)
      // A JSON answer carries only the response; the rest goes where the client can still hear it.
      if (channel === undefined) {
        this.sendStandalone(json)
        return
      }
    }
    this.emit(channel, json)
    if (final) this.completeStream(relatedRequestId)
  }

  /** A notification serialized once for many receivers: a broadcast (standalone), a listen stream's change (its request's stream). */
  sendSerialized (json: string, relatedRequestId?: JsonRpcId): void {
    if (relatedRequestId !== undefined) this.route(json, undefined, relatedRequestId)
    else this.sendStandalone(json)
  }

  close (): void {
    this.endStreams()
    // No closure to run without a store: every 2026-07-28 request's channel closes with its call.
    if (this.env.store !== undefined) this.guardStore(() => this.env.store?.deleteSession(this.session.id))
  }

  /** Ends every live connection and forgets the requests: what closing does besides the events. */
  protected endStreams (): void {
    this.dropLive(this.standalone)?.end()
    if (this.inflight !== undefined) {
      for (const channel of this.inflight.values()) this.dropLive(channel)?.end()
      this.inflight.clear()
    }
    this.requests.clear()
  }

  closeStream (requestId: JsonRpcId, retryMs?: number): boolean {
    const entry = this.requests.get(requestId)
    if (entry === undefined || !this.resumable) return false
    // An answer still pending as JSON becomes a stream first (primed), so the client has a resume point.
    const channel = entry.channel ?? this.streamOf(entry, requestId)
    if (channel === undefined || channel.live === undefined) return false
    if (retryMs !== undefined) this.prime(channel, channel.live, Math.max(0, Math.floor(retryMs)))
    this.dropLive(channel)?.end()
    return true
  }

  // ---- requests --------------------------------------------------------------

  /** Starts answering `requestId` on an event stream: headers, then a priming event when the client can resume. */
  openRequestStream (requestId: JsonRpcId, res: ServerResponse, headers: OutgoingHttpHeaders): void {
    const entry: RequestEntry = { channel: undefined, response: undefined, reply: undefined, errorCode: undefined }
    this.requests.set(requestId, entry)
    this.openStream(entry, requestId, res, headers)
  }

  /**
   * Starts answering `requestId` with a single JSON body; see {@link takeResponse}.
   * With `reply` (the client also takes an event stream) the answer becomes an
   * event stream on that reply as soon as anything but the response is sent
   * for the request; the route then sees `reply.sent` and calls {@link handlerDone}.
   */
  collectResponse (requestId: JsonRpcId, reply?: UpgradableReply): void {
    this.requests.set(requestId, { channel: undefined, response: undefined, reply, errorCode: undefined })
  }

  /** True while `requestId` is answered as a JSON body (not, or not yet, upgraded to an event stream). */
  isCollecting (requestId: JsonRpcId): boolean {
    const entry = this.requests.get(requestId)
    return entry !== undefined && entry.channel === undefined
  }

  /** The JSON-RPC error code of the collected response, if it is an error (a modern answer's HTTP status depends on it). */
  errorCodeOf (requestId: JsonRpcId): number | undefined {
    return this.requests.get(requestId)?.errorCode
  }

  /** Whether the collected response says the server could not answer now (HTTP: 503 with Retry-After). */
  retriesLaterOf (requestId: JsonRpcId): boolean {
    return this.requests.get(requestId)?.retryLater === true
  }

  /** The collected JSON response (undefined when the request was cancelled); forgets the request. */
  takeResponse (requestId: JsonRpcId): string | undefined {
    const response = this.requests.get(requestId)?.response
    this.requests.delete(requestId)
    return response
  }

  /**
   * The handler of a request answered on an event stream returned: its stream is complete now,
   * unless its response completed it already. A cancelled request gets no response, so only this
   * ends its stream.
   */
  handlerDone (requestId: JsonRpcId): void {
    if (this.requests.get(requestId)?.channel !== undefined) this.completeStream(requestId)
  }

  /** Nothing more will be written on the request's stream (its response went out): ends it and forgets the request. */
  private completeStream (requestId: JsonRpcId): void {
    const channel = this.requests.get(requestId)?.channel
    /* c8 ignore next: only called for requests answered on a stream */
    if (channel === undefined) return
    channel.complete = true
    this.requests.delete(requestId)
    this.inflight?.delete(channel.id)
    // A resuming GET still replaying ends itself once it has caught up.
    if (channel.held === undefined) this.dropLive(channel)?.end()
  }

  /**
   * The upgrade (see `answerMode` in streamable.ts for why): a request still
   * answered as JSON, whose client also takes an event stream, gets one now,
   * because something other than its response must reach the client first.
   * The reply is hijacked and the stream opened (primed as usual, from the
   * session's negotiated version); the caller writes that message on it.
   * Undefined when the answer stays JSON: the client takes only JSON, the
   * response was already collected, or the connection is gone (the route's
   * close listener cancels the handler, as for any JSON answer).
   */
  private streamOf (entry: RequestEntry, requestId: JsonRpcId): EventChannel | undefined {
    const reply = entry.reply
    if (reply === undefined || entry.response !== undefined) return undefined
    entry.reply = undefined
    if (gone(reply.raw)) return undefined
    // From here on the raw response is ours; headers set by the hooks (CORS) are carried over.
    reply.hijack()
    return this.openStream(entry, requestId, reply.raw, reply.getHeaders() as OutgoingHttpHeaders)
  }

  private openStream (entry: RequestEntry, requestId: JsonRpcId, res: ServerResponse, headers: OutgoingHttpHeaders): EventChannel {
    const channel: EventChannel = { id: this.nextStreamId(), requestId, live: undefined, held: undefined, complete: false }
    entry.channel = channel
    this.inflight ??= new Map()
    this.inflight.set(channel.id, channel)
    const stream = this.attach(channel, res, headers)
    if (this.resumable) this.prime(channel, stream, PRIMING_RETRY_MS)
    return channel
  }

  /** The id of the next request stream of this session (request streams count up from 1). */
  protected nextStreamId (): string {
    return String(this.nextStream++)
  }

  // ---- the standalone stream and resumption ----------------------------------

  /** True while a standalone GET stream is connected (a second one is refused with 409). */
  get hasStandalone (): boolean {
    return this.standalone.live !== undefined
  }

  /** Opens the standalone GET stream, replacing a connection that may linger. */
  openStandalone (res: ServerResponse, headers: OutgoingHttpHeaders): void {
    this.dropLive(this.standalone)?.end()
    this.standaloneUsed = true
    const stream = this.attach(this.standalone, res, headers)
    if (this.resumable) this.prime(this.standalone, stream, PRIMING_RETRY_MS)
  }

  /**
   * Looks up a resume: which stream `lastEventId` belongs to and what came
   * after it. Live events of that stream are held from now on, so none is
   * lost or sent twice while an asynchronous store answers. Undefined when the
   * id is not one of this session's (the route answers 400).
   */
  async planResume (lastEventId: string): Promise<ResumePlan | undefined> {
    const streamId = this.streamIdOf(lastEventId)
    if (this.env.store === undefined || streamId === undefined) return undefined
    const channel = streamId === STANDALONE ? this.standalone : this.inflight?.get(streamId)
    if (channel !== undefined) channel.held = []
    let replay: EventReplay | undefined
    try {
      replay = await this.env.store.replayAfter(this.session.id, lastEventId)
    } catch (error) {
      this.env.onStoreError(error)
    }
    if (replay === undefined || replay.streamId !== streamId || this.session.closed) {
      if (channel !== undefined) channel.held = undefined
      return undefined
    }
    return { channel, replay }
  }

  /** The stream an event id of this session names; undefined when it is not one of ours. */
  protected streamIdOf (eventId: string): string | undefined {
    return EVENT_ID.exec(eventId)?.[1]
  }

  /**
   * Answers a resuming GET: the stored events after the client's last one,
   * then the events held meanwhile, then live events until the stream
   * completes. It replaces any connection the stream still had.
   */
  resume (plan: ResumePlan, res: ServerResponse, headers: OutgoingHttpHeaders): void {
    this.resumeOn(plan, (channel) => {
      if (channel !== undefined) return this.attach(channel, res, headers)
      const stream = this.newStream(res)
      stream.open(headers)
      return stream
    })
  }

  /** Replays `plan` on the connection `connect` gives the stream, then hands the stream its live events. */
  protected resumeOn (plan: ResumePlan, connect: (channel: EventChannel | undefined) => LiveStream): void {
    const { channel, replay } = plan
    const held = channel?.held ?? []
    if (channel !== undefined) {
      channel.held = undefined
      this.dropLive(channel)?.end()
    }
    const stream = connect(channel)
    const replayed = new Set<string>()
    for (const event of replay.events) {
      replayed.add(event.id)
      stream.message(event.data, event.id)
    }
    for (const event of held) if (!replayed.has(event.id)) stream.message(event.data, event.id)
    // A request answered already (before or during the replay): nothing more will come on this stream.
    if (channel === undefined || channel.complete) {
      if (channel !== undefined) this.dropLive(channel)
      stream.end()
    }
  }

  // ---- events ------------------------------------------------------------------

  /** A message for the standalone stream: written (and recorded) once a client has opened it. */
  protected sendStandalone (json: string): void {
    if (this.standaloneUsed) this.emit(this.standalone, json)
  }

  private eventId (channel: EventChannel): string {
    return `${channel.id}_${this.nextEvent++}`
  }

  private emit (channel: EventChannel, json: string): void {
    if (this.env.store === undefined) {
      channel.live?.message(json)
      return
    }
    const event: StoredEvent = { id: this.eventId(channel), data: json }
    this.record(channel, event)
    channel.held?.push(event)
    channel.live?.message(json, event.id)
  }

  private prime (channel: EventChannel, stream: LiveStream, retryMs: number): void {
    // A request stream's priming event names its request: if this instance dies mid-call, the
    // instance a client resumes on answers that request with an error (scale-out/attachments.ts).
    const event: StoredEvent = { id: this.eventId(channel), data: '', ...(channel.requestId === undefined ? {} : { requestId: channel.requestId }) }
    this.record(channel, event)
    stream.prime(event.id, retryMs)
  }

  private record (channel: EventChannel, event: StoredEvent): void {
    this.guardStore(() => this.env.store?.append(this.session.id, channel.id, event, this.session.client))
  }

  private guardStore (action: () => void | Promise<void>): void {
    try {
      const pending = action()
      if (pending !== undefined) pending.catch(this.env.onStoreError)
    } catch (error) {
      this.env.onStoreError(error)
    }
  }

  // ---- connections -------------------------------------------------------------

  private newStream (res: ServerResponse): SseStream {
    const stream = new SseStream(res, {
      maxQueuedBytes: this.env.maxQueuedBytes,
      onOverflow: () => { this.session.close('slow consumer: more than maxQueuedBytes waiting') }
    })
    this.env.streams.add(stream)
    return stream
  }

  /** Makes `res` the live connection of `channel` and watches for the client going away. */
  protected attach (channel: EventChannel, res: ServerResponse, headers: OutgoingHttpHeaders): SseStream {
    const stream = this.newStream(res)
    stream.open(headers)
    channel.live = stream
    res.once('close', () => {
      if (channel.live !== stream) return
      channel.live = undefined
      // MCP: a disconnect is not a cancellation, since the client may resume (older clients too, from
      // any event id they got). Without a store there is no way back, and nobody could read the answer.
      if (channel !== this.standalone && !channel.complete && this.env.store === undefined) this.cancelRequestOf(channel)
    })
    return stream
  }

  private cancelRequestOf (channel: EventChannel): void {
    for (const [requestId, entry] of this.requests) {
      if (entry.channel === channel) this.session.cancelRequest(requestId, 'the client disconnected')
    }
  }

  /** Detaches the live connection (so its 'close' is not taken for a client disconnect) and returns it. */
  protected dropLive (channel: EventChannel): LiveStream | undefined {
    const live = channel.live
    channel.live = undefined
    return live
  }
}
