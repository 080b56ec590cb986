import type { OutgoingHttpHeaders, ServerResponse } from 'node:http'
import type { JsonRpcId } from '../../jsonrpc/messages.js'
import { comparePositions } from '../../scale/position.js'
import { StreamableChannel } from '../streamable/channel.js'
import { PRIMING_RETRY_MS, type LiveStream, type ResumePlan, type StreamEnv } from '../streamable/event-ids.js'

/** A request stream's event id names its executor: `{instance}.{k}_{n}`. */
export const SCALED_EVENT_ID = /^(([A-Za-z0-9-]{1,64})\.\d{1,15})_\d{1,15}$/
/** A stream-0 event id, `0_{s}_{b}` (log and fan-out positions), `.p` for priming. */
export const STREAM0_EVENT_ID = /^0_(\d{1,20}(?:-\d{1,20})?)_(\d{1,20}(?:-\d{1,20})?)(?:\.p)?$/

/** What a gateway needs of its instance's node. */
export interface GatewayNode {
  /** This instance: request streams are named `{self}.{k}`. */
  readonly self: string
  /** Hands a stream-0 message to whichever instance holds the session's stream 0. */
  readonly deliver0: (sessionId: string, json: string) => void
}

/** A stream-0 message that reached the gateway while a resume was replaying: written after, unless replayed. */
interface HeldArrival {
  kind: 'log' | 'fanout'
  position: string
  json: string
}

/**
 * The channel of a Streamable HTTP session that several instances serve. Request streams are as
 * on one instance, named after their executor (`{self}.{k}`) and recorded in the shared event
 * store. Stream 0 (the standalone GET stream) lives in the bus instead: every message for it goes
 * to the session's log and the fan-out, and the one instance that holds the client's GET (the
 * session's gateway) writes it. Its event ids are `0_{s}_{b}`, the last log and fan-out positions
 * written, so a resume on any instance knows where to start in both.
 */
export class GatewayChannel extends StreamableChannel {
  private readonly node: GatewayNode
  private gateway = false
  private lastLog = '0'
  private lastFanout = '0'
  private held0: HeldArrival[] | undefined

  constructor (env: StreamEnv, node: GatewayNode) {
    super(env)
    this.node = node
  }

  override sendSerialized (json: string, relatedRequestId?: JsonRpcId): void {
    if (relatedRequestId !== undefined) {
      super.sendSerialized(json, relatedRequestId)
      return
    }
    // Only registry changes come here (broadcasts go through the bus); every instance announces
    // its own, so the gateway writes it and nobody else.
    this.writeGateway(json, `0_${this.lastLog}_${this.lastFanout}`)
  }

  /** The events are shared: closing here may only drop this instance's copy. */
  override close (): void {
    this.endStreams()
  }

  protected override nextStreamId (): string {
    return `${this.node.self}.${super.nextStreamId()}`
  }

  protected override streamIdOf (eventId: string): string | undefined {
    return SCALED_EVENT_ID.exec(eventId)?.[1]
  }

  protected override sendStandalone (json: string): void {
    this.node.deliver0(this.session.id, json)
  }

  /**
   * A client resumed one of this instance's request streams on another instance; the stream's
   * events go there through the bus (`sink`) from now on.
   */
  resumeRemotely (plan: ResumePlan, sink: LiveStream): void {
    this.resumeOn(plan, (channel) => {
      if (channel !== undefined) channel.live = sink
      return sink
    })
  }

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
}
