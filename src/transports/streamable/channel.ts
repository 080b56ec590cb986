import type { OutgoingHttpHeaders, ServerResponse } from 'node:http'
import type { JsonRpcId, JsonRpcMessage } from '../../jsonrpc/messages.js'
import type { Session, SessionChannel } from '../../protocol/session.js'
import type { EventReplay, StoredEvent } from '../../scale/ports.js'
import { comparePositions } from '../../scale/position.js'
import { SseStream } from '../http/sse-stream.js'
import {
  EVENT_ID, PRIMING_RETRY_MS, PRIMING_SINCE, SCALED_EVENT_ID, STANDALONE, gone, isResponseTo,
  type EventChannel, type LiveStream, type RequestEntry, type ResumePlan, type StreamEnv, type UpgradableReply
} from './event-ids.js'

/** A stream-0 message that reached the gateway while a resume was replaying: written after, unless replayed. */
interface HeldArrival {
  kind: 'log' | 'fanout'
  position: string
  json: string
}

export type { StreamEnv } from './event-ids.js'

/**
 * The per-session routing state of Streamable HTTP, and the session's
 * channel: a message produced while handling request R goes on R's POST
 * stream (or into R's JSON answer, which becomes a stream when the client
 * takes one and anything but the response comes first), everything else on
 * the standalone GET stream. With an event store every event gets an id and
 * is recorded, so any stream can be resumed with `Last-Event-ID`.
 */
export class StreamableChannel implements SessionChannel {
  private readonly env: StreamEnv
  private session!: Session
  private readonly requests = new Map<JsonRpcId, RequestEntry>()
  private readonly inflight = new Map<string, EventChannel>()
  private readonly standalone: EventChannel = { id: STANDALONE, live: undefined, held: undefined, complete: false }
  /** Standalone events are kept only once a client has opened that stream: before, nobody could resume it. */
  private standaloneUsed = false
  private nextStream = 1
  private nextEvent = 1
  // Scale-out: stream 0 lives in the bus (the session's log and the fan-out), and this instance
  // writes it only while it is the session's gateway. Its event ids are `0_{s}_{b}`: the last log
  // and fan-out positions written, so a resume on any instance knows where to start in both.
  private gateway = false
  private lastLog = '0'
  private lastFanout = '0'
  private held0: HeldArrival[] | undefined

  constructor (env: StreamEnv) {
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
  private get resumable (): boolean {
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
    if (final) this.complete(relatedRequestId)
  }

  /** A notification serialized once for many receivers: a broadcast (standalone), a listen stream's change (its request's stream). */
  sendSerialized (json: string, relatedRequestId?: JsonRpcId): void {
    if (relatedRequestId !== undefined) {
      this.route(json, undefined, relatedRequestId)
      return
    }
    // Scale-out: only registry changes come here (broadcasts go through the bus); every instance
    // announces its own, so the gateway writes it and nobody else.
    if (this.env.scale !== undefined) this.writeGateway(json, `0_${this.lastLog}_${this.lastFanout}`)
    else this.sendStandalone(json)
  }

  close (): void {
    for (const channel of [this.standalone, ...this.inflight.values()]) this.dropLive(channel)?.end()
    this.requests.clear()
    this.inflight.clear()
    // Scale-out: the events are shared, and closing here may only drop this instance's copy.
    if (this.env.scale === undefined) this.guardStore(() => this.env.store?.deleteSession(this.session.id))
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
   * for the request; the route then sees `reply.sent` and calls {@link finish}.
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

  /** The collected JSON response (undefined when the request was cancelled); forgets the request. */
  takeResponse (requestId: JsonRpcId): string | undefined {
    const response = this.requests.get(requestId)?.response
    this.requests.delete(requestId)
    return response
  }

  /** The handler is done: ends the stream if no response did (a cancelled request gets none). */
  finish (requestId: JsonRpcId): void {
    if (this.requests.get(requestId)?.channel !== undefined) this.complete(requestId)
  }

  private complete (requestId: JsonRpcId): void {
    const channel = this.requests.get(requestId)?.channel
    /* c8 ignore next: complete() is only called for requests answered on a stream */
    if (channel === undefined) return
    channel.complete = true
    this.requests.delete(requestId)
    this.inflight.delete(channel.id)
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
    const id = this.env.scale === undefined ? String(this.nextStream++) : `${this.env.scale.self}.${this.nextStream++}`
    const channel: EventChannel = { id, requestId, live: undefined, held: undefined, complete: false }
    entry.channel = channel
    this.inflight.set(channel.id, channel)
    const stream = this.attach(channel, res, headers)
    if (this.resumable) this.prime(channel, stream, PRIMING_RETRY_MS)
    return channel
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
    const streamId = (this.env.scale === undefined ? EVENT_ID : SCALED_EVENT_ID).exec(lastEventId)?.[1]
    if (this.env.store === undefined || streamId === undefined) return undefined
    const channel = streamId === STANDALONE ? this.standalone : this.inflight.get(streamId)
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

  /**
   * Scale-out: a client resumed one of this instance's request streams on another instance; the
   * stream's events go there through the bus (`sink`) from now on.
   */
  resumeRemotely (plan: ResumePlan, sink: LiveStream): void {
    this.resumeOn(plan, (channel) => {
      if (channel !== undefined) channel.live = sink
      return sink
    })
  }

  private resumeOn (plan: ResumePlan, connect: (channel: EventChannel | undefined) => LiveStream): void {
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

  private sendStandalone (json: string): void {
    if (this.env.scale !== undefined) this.env.scale.deliver0(this.session.id, json)
    else if (this.standaloneUsed) this.emit(this.standalone, json)
  }

  // ---- scale-out: stream 0 at the gateway ------------------------------------

  /** True while this instance holds the session's stream 0. */
  get isGateway (): boolean {
    return this.gateway
  }

  /**
   * This instance claimed stream 0 for a plain GET: what the log and the fan-out held at the claim
   * went to the previous holder; the stream starts after `tail` and `fanout`.
   */
  openGateway (res: ServerResponse, headers: OutgoingHttpHeaders, tail: string, fanout: string): void {
    this.gateway = true
    this.held0 = undefined
    this.lastLog = tail
    this.lastFanout = fanout
    this.dropLive(this.standalone)?.end()
    const stream = this.attach(this.standalone, res, headers)
    if (this.resumable) stream.prime(`0_${tail}_${fanout}.p`, PRIMING_RETRY_MS)
  }

  /**
   * This instance claimed stream 0 for a resume after `0_{log}_{fanout}`: arrivals are held from
   * now until {@link finishResume0} has written the replay.
   */
  beginResume0 (log: string, fanout: string): void {
    this.gateway = true
    this.lastLog = log
    this.lastFanout = fanout
    this.held0 = []
  }

  /** Writes the replay (log, then fan-out), then what arrived meanwhile and was not in it; then live. */
  finishResume0 (res: ServerResponse, headers: OutgoingHttpHeaders, log: Array<{ position: string, json: string }>, fanout: Array<{ position: string, json: string }>): void {
    const held = this.held0 ?? []
    this.held0 = undefined
    this.dropLive(this.standalone)?.end()
    this.attach(this.standalone, res, headers)
    for (const entry of log) this.writeLog(entry.position, entry.json)
    for (const entry of fanout) this.writeFanout(entry.position, entry.json)
    for (const arrival of held) {
      if (arrival.kind === 'log') this.writeLog(arrival.position, arrival.json)
      else this.writeFanout(arrival.position, arrival.json)
    }
  }

  /** Another instance holds stream 0 now: end ours, keep the session. */
  releaseGateway (): void {
    this.gateway = false
    this.held0 = undefined
    this.dropLive(this.standalone)?.end()
  }

  /** A stream-0 message routed here by `deliver0`, at `position` in the session's log. */
  writeLog (position: string, json: string): void {
    if (!this.gateway || comparePositions(position, this.lastLog) <= 0) return
    if (this.held0 !== undefined) {
      this.held0.push({ kind: 'log', position, json })
      return
    }
    this.lastLog = position
    this.writeGateway(json, `0_${position}_${this.lastFanout}`)
  }

  /** A broadcast or resource update at `position` in the fan-out. */
  writeFanout (position: string, json: string): void {
    if (!this.gateway || comparePositions(position, this.lastFanout) <= 0) return
    if (this.held0 !== undefined) {
      this.held0.push({ kind: 'fanout', position, json })
      return
    }
    this.lastFanout = position
    this.writeGateway(json, `0_${this.lastLog}_${position}`)
  }

  private writeGateway (json: string, id: string): void {
    if (!this.gateway || this.held0 !== undefined) return
    this.standalone.live?.message(json, this.resumable ? id : undefined)
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
    // instance a client resumes on answers that request with an error (scale-node.ts).
    const event: StoredEvent = { id: this.eventId(channel), data: '', ...(channel.requestId === undefined ? {} : { requestId: channel.requestId }) }
    this.record(channel, event)
    stream.prime(event.id, retryMs)
  }

  private record (channel: EventChannel, event: StoredEvent): void {
    this.guardStore(() => this.env.store?.append(this.session.id, channel.id, event))
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
  private attach (channel: EventChannel, res: ServerResponse, headers: OutgoingHttpHeaders): SseStream {
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
  private dropLive (channel: EventChannel): LiveStream | undefined {
    const live = channel.live
    channel.live = undefined
    return live
  }
}
