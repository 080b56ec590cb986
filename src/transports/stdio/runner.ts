import type { Readable, Writable } from 'node:stream'
import { classifyMessage, failure, type ClassifiedMessage, type JsonRpcId } from '../../jsonrpc/messages.js'
import { ErrorCode, McpError } from '../../jsonrpc/errors.js'
import { stdioCaller, type Caller } from '../../protocol/caller.js'
import type { ProtocolServer } from '../../protocol/protocol-server.js'
import { StdioGeneration } from '../../protocol/modern/stdio-generation.js'
import { unsupportedVersion } from '../../protocol/modern/errors.js'
import { readAndCheckModernRequest } from '../../protocol/modern/ladder.js'
import { hasModernClaim } from '../../protocol/modern/meta.js'
import { openModernSession } from '../../protocol/modern/session.js'
import { Session, type SessionChannel } from '../../protocol/session.js'
import type { Refusal } from '../../protocol/authz/denials.js'
import { cancelOf } from '../../jsonrpc/cancel.js'
import { memoryRateCounter } from '../rate-counters.js'

export interface StdioRunnerOptions {
  input: Readable
  output: Writable
  /** Longest accepted line in bytes; longer lines are refused without being buffered. */
  maxMessageBytes: number
}

const NEWLINE = 0x0a

/**
 * Newline-delimited JSON-RPC over a pair of streams (stdin/stdout by default).
 * stdout carries protocol messages only; diagnostics go to the logger (stderr).
 * One client, one session, for the life of the process.
 */
export class StdioRunner {
  readonly session: Session
  /** Resolves when the input has ended (and answers in flight were written) or stop() was called. */
  readonly closed: Promise<void>
  private readonly core: ProtocolServer
  private readonly options: StdioRunnerOptions
  private readonly pending: Buffer[] = []
  private pendingBytes = 0
  /** True while skipping the rest of an oversize line. */
  private discarding = false
  private readonly inflight = new Set<Promise<void>>()
  private resolveClosed!: () => void
  private stopped = false
  /** Lines waiting for the next flush; see {@link write}. */
  private readonly outbox: string[] = []
  private flushScheduled = false
  /** Which generation this process speaks; see {@link StdioGeneration}. */
  private readonly generation: StdioGeneration
  /** 2026-07-28 requests in flight, by id, so that `notifications/cancelled` reaches them. */
  private readonly modernRequests = new Map<JsonRpcId, Session>()
  /** Settles once the door decisions of the lines read so far are taken ({@link inOrder}); undefined while none is pending. */
  private doors: Promise<void> | undefined
  /** Budgets of rate-limited definitions: one client, the process that started us. */
  private readonly counter = memoryRateCounter()
  /** Where the throwaway sessions of 2026-07-28 requests write: the same stdout. */
  private readonly modernChannel: SessionChannel = {
    send: (message) => { this.write(JSON.stringify(message)) },
    sendSerialized: (json) => { this.write(json) },
    close: () => {},
    multiplexed: true
  }

  constructor (core: ProtocolServer, options: StdioRunnerOptions) {
    this.core = core
    this.options = options
    this.closed = new Promise((resolve) => { this.resolveClosed = resolve })
    this.generation = new StdioGeneration(core.modern.generations)
    this.session = new Session('stdio', {
      send: (message) => { this.write(JSON.stringify(message)) },
      sendSerialized: (json) => { this.write(json) },
      close: () => {},
      multiplexed: true
    })
    this.session.client = 'stdio'
  }

  start (): void {
    this.core.addSession(this.session)
    const { input, output } = this.options
    input.on('data', this.onData)
    input.once('end', this.onEnd)
    input.once('error', this.onEnd)
    // EPIPE and friends: the client is gone; stop quietly instead of crashing on an unhandled 'error'.
    output.on('error', this.onOutputError)
    input.resume()
  }

  /** Ends the session now, aborting handlers in flight. Idempotent. */
  async stop (): Promise<void> {
    if (this.stopped) return await this.closed
    // Answers already produced (the last ones before stdin ended) go out before we stop writing.
    this.flush()
    this.stopped = true
    const { input, output } = this.options
    input.off('data', this.onData)
    input.off('end', this.onEnd)
    input.off('error', this.onEnd)
    input.pause()
    this.session.close('server stopped')
    for (const request of [...this.modernRequests.values()]) request.close('server stopped')
    output.off('error', this.onOutputError)
    // Keep a listener: a late EPIPE after stop must not become an uncaught exception.
    output.on('error', () => {})
    this.resolveClosed()
    await this.closed
  }

  private readonly onOutputError = (): void => { void this.stop() }

  private readonly onEnd = (): void => {
    // The client closed our input: finish what it asked for, then end the session. Listen streams
    // never finish by themselves: they end now (gracefully: the client may still read stdout).
    void this.core.closeListenStreams()
      .then(async () => await Promise.allSettled([...this.inflight]))
      .then(async () => { await this.stop() })
  }

  private readonly onData = (chunk: Buffer | string): void => {
    let buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
    let newline = buffer.indexOf(NEWLINE)
    while (newline !== -1) {
      const tail = buffer.subarray(0, newline)
      if (this.discarding) {
        this.discarding = false
      } else if (this.pendingBytes + tail.length > this.options.maxMessageBytes) {
        this.refuseOversize()
        this.discarding = false
      } else {
        const line = this.pending.length === 0 ? tail : Buffer.concat([...this.pending, tail])
        this.pending.length = 0
        this.pendingBytes = 0
        this.handleLine(line)
      }
      buffer = buffer.subarray(newline + 1)
      newline = buffer.indexOf(NEWLINE)
    }
    if (buffer.length === 0 || this.discarding) return
    if (this.pendingBytes + buffer.length > this.options.maxMessageBytes) {
      // Refuse as soon as the limit is crossed and drop the rest of the line as it streams in.
      this.refuseOversize()
      this.discarding = true
      return
    }
    this.pending.push(buffer)
    this.pendingBytes += buffer.length
  }

  private refuseOversize (): void {
    this.pending.length = 0
    this.pendingBytes = 0
    const max = this.options.maxMessageBytes
    this.core.telemetry.limitRefusal('maxMessageBytes')
    this.session.send(failure(null, ErrorCode.InvalidRequest, `Invalid request: message larger than ${max} bytes`, { limit: 'maxMessageBytes', max }))
  }

  private handleLine (line: Buffer): void {
    const text = line.toString('utf8').trim()
    if (text === '') return
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      this.session.send(failure(null, ErrorCode.ParseError, 'Parse error: the message is not valid JSON'))
      return
    }
    const classified = classifyMessage(value)
    // stdio has no authentication (no principal): its one client is the process that started the server.
    const caller = stdioCaller(line.length)
    this.inOrder(() => this.route(classified, caller))
  }

  /**
   * Runs `step` now, or after the door decisions pending before it: a request waiting at the door
   * (an async access predicate, a budget) must not be overtaken by the lines after it, such as its
   * own `notifications/cancelled`. `step` returns its door decision when it has one pending.
   */
  private inOrder (step: () => Promise<void> | undefined): void {
    const previous = this.doors
    const pending = previous === undefined ? step() : previous.then(async () => { await step() })
    if (pending === undefined) return
    const settled: Promise<void> = pending.finally(() => { if (this.doors === settled) this.doors = undefined })
    this.doors = settled
  }

  /** One message to its generation's leg; returns the door decision when one is pending. */
  private route (classified: ClassifiedMessage, caller: Caller): Promise<void> | undefined {
    if (this.generation.route(classified) === 'modern') return this.dispatchModern(classified, caller)
    const dispatch = (): void => { this.track(this.core.dispatcher.dispatch(this.session, classified, caller)) }
    if (classified.kind !== 'request') {
      dispatch()
      return undefined
    }
    return this.atDoor(classified.message.id, this.core.screen(classified.message, caller, { protocolVersion: this.session.protocolVersion ?? '', counter: this.counter }), dispatch)
  }

  /**
   * Goes on with `admitted` once the door lets the request in; a refusal is answered with its
   * JSON-RPC error (-32005 missing scopes, -32006 over a budget) and nothing else runs.
   */
  private atDoor (id: JsonRpcId, decision: Promise<Refusal | undefined> | undefined, admitted: () => void): Promise<void> | undefined {
    if (decision === undefined) {
      admitted()
      return undefined
    }
    const decided = decision.then((refusal) => {
      if (refusal === undefined) admitted()
      else this.write(JSON.stringify(failure(id, refusal.code, refusal.message, refusal.data)))
    }, () => {
      // A predicate that throws: the request is refused without a word of why (the rule is the server's).
      this.write(JSON.stringify(failure(id, ErrorCode.InternalError, 'Internal error')))
    })
    this.track(decided)
    return decided
  }

  private track (handled: Promise<void>): void {
    this.inflight.add(handled)
    void handled.finally(() => this.inflight.delete(handled))
  }

  /**
   * A message of the 2026-07-28 leg: a request runs the ladder (the same rungs
   * as HTTP, without headers), then the dispatcher on a throwaway modern
   * session; `notifications/cancelled` (stdio keeps it) aborts one in flight.
   * Client responses have nothing to answer: this revision sends no requests.
   */
  private dispatchModern (classified: ClassifiedMessage, caller: Caller): Promise<void> | undefined {
    if (classified.kind === 'notification') {
      const cancel = cancelOf(classified)
      if (cancel !== undefined) this.modernRequests.get(cancel.requestId)?.cancelRequest(cancel.requestId, cancel.reason)
      return
    }
    if (classified.kind === 'invalid') {
      this.write(JSON.stringify(failure(classified.id, ErrorCode.InvalidRequest, `Invalid request: ${classified.reason}`)))
      return
    }
    if (classified.kind !== 'request') return
    const message = classified.message
    let meta
    try {
      // A process pinned to 2026-07-28 speaks no legacy revision: `initialize` is an unsupported version.
      if (message.method === 'initialize' && !hasModernClaim(message.params)) throw unsupportedVersion(message.params?.protocolVersion, this.core.modern.modernVersions)
      meta = readAndCheckModernRequest(message, this.core.modern)
    } catch (error) {
      /* c8 ignore next: the ladder throws McpError only */
      if (!(error instanceof McpError)) throw error
      this.write(JSON.stringify(failure(message.id, error.code, error.message, error.data)))
      return
    }
    if (this.modernRequests.has(message.id)) {
      this.write(JSON.stringify(failure(message.id, ErrorCode.InvalidRequest, 'Invalid request: a request with this id is already in flight')))
      return
    }
    const admitted = meta
    return this.atDoor(message.id, this.core.screen(message, caller, { protocolVersion: meta.protocolVersion, counter: this.counter }), () => {
      const session = openModernSession(this.modernChannel, undefined, admitted)
      try {
        // One process, one client: its modern requests share one maxInflightRequests.
        this.core.beginModernRequest(session, caller)
      } catch (error) {
        /* c8 ignore next: beginModernRequest throws McpError only */
        if (!(error instanceof McpError)) throw error
        session.close('refused')
        this.write(JSON.stringify(failure(message.id, error.code, error.message, error.data)))
        return
      }
      this.modernRequests.set(message.id, session)
      this.track(this.core.dispatcher.dispatch(session, classified, caller).finally(() => {
        this.modernRequests.delete(message.id)
        this.core.endModernRequest(session)
      }))
    })
  }

  /**
   * Queues a line; every line produced during one turn of the event loop goes
   * out in a single write. A client pipelining requests gets its answers in
   * a few large writes instead of one syscall and one UTF-8 copy per message.
   */
  private write (json: string): void {
    if (this.stopped) return
    this.outbox.push(json)
    if (!this.flushScheduled) {
      this.flushScheduled = true
      setImmediate(this.flush)
    }
  }

  private readonly flush = (): void => {
    this.flushScheduled = false
    if (this.outbox.length === 0) return
    const text = this.outbox.join('\n') + '\n'
    this.outbox.length = 0
    const { output } = this.options
    if (this.stopped || output.destroyed || !output.writable) return
    output.write(text)
  }
}
