import { setTimeout as sleep } from 'node:timers/promises'
import { ErrorCode, McpError } from '../jsonrpc/errors.js'
import { classifyMessage, type JsonRpcId, type JsonRpcNotification, type JsonRpcRequest, type JsonRpcResponse } from '../jsonrpc/messages.js'
import { abortReason, answerServerRequest, cancelledNotification, type Channel, type Inbound, type SendOptions } from './channel.js'
import { readEvents } from './sse.js'
import { TransportError } from './transport-error.js'

/** One HTTP request of a client, to the MCP endpoint. */
export interface HttpRequest {
  method: 'GET' | 'POST' | 'DELETE'
  headers: Record<string, string>
  body?: string
  /** Aborts a request whose answer has not begun. */
  signal?: AbortSignal
}

/** The answer, as soon as its head is in: the body streams on. */
export interface HttpAnswer {
  status: number
  /** Lower-cased names. */
  headers: Record<string, string>
  body: AsyncIterable<Uint8Array | string>
  /** Stops reading and drops the connection: the server sees its client leave. */
  cancel: () => void
}

/** How a channel sends HTTP requests: `app.inject()` in tests, `fetch` in the command line. */
export type HttpExchange = (request: HttpRequest) => Promise<HttpAnswer>

export interface HttpChannelOptions {
  /**
   * The exchange can drop an answer only once its head is out (`app.inject()`: nothing reaches
   * the server's side of a request still waiting for its first byte). A 2026-07-28 request given
   * a signal then asks for an event stream, whose head goes out before the handler runs, so that
   * aborting reaches the handler; other requests keep the usual `Accept` (a JSON answer).
   */
  closesOnlyStreams?: boolean
}

/** A stream dropped without its answer is resumed (`Last-Event-ID`) at most this many times in a row. */
const MAX_RESUMES = 5

/**
 * Streamable HTTP from the client side (MCP 2025-03-26 and later, and the 2026-07-28 leg): each
 * request is a POST answered by one JSON body or by an event stream carrying, before the answer,
 * its notifications and (2025 sessions) the server's own requests, which are answered by POSTing
 * the response. A session id the server hands out is sent on every later request and ended with
 * DELETE on close.
 */
export class HttpChannel implements Channel {
  readonly kind = 'http'
  /** The session's version header (2025 sessions after `initialize`, and every 2026-07-28 request). */
  protocolVersion: string | undefined
  private sessionId: string | undefined
  private readonly exchange: HttpExchange
  private readonly baseHeaders: Record<string, string>
  private readonly inbound: Inbound
  /** See {@link HttpChannelOptions.closesOnlyStreams}. */
  private readonly closesOnlyStreams: boolean
  /** Answers being read: close() drops them. */
  private readonly open = new Set<HttpAnswer>()
  /** Requests in flight: close() ends them. */
  private readonly stops = new Set<AbortController>()
  private closed = false
  private closing: Promise<void> | undefined

  constructor (exchange: HttpExchange, baseHeaders: Record<string, string>, inbound: Inbound, options: HttpChannelOptions = {}) {
    this.exchange = exchange
    this.baseHeaders = baseHeaders
    this.inbound = inbound
    this.closesOnlyStreams = options.closesOnlyStreams === true
  }

  async request (message: JsonRpcRequest, options: SendOptions = {}): Promise<JsonRpcResponse> {
    const { signal } = options
    if (signal?.aborted === true) throw abortReason(signal)
    // A request whose cancel is closing its stream, over an exchange that can close only a started
    // answer, asks for an event stream from the start: its head is out at once.
    const streamOnly = this.closesOnlyStreams && options.cancel === 'close' && options.cancellable === true
    const accept = streamOnly ? 'text/event-stream' : 'application/json, text/event-stream'
    // Ends the request: the caller's signal, or close().
    const stop = new AbortController()
    let answer: HttpAnswer | undefined
    const onSignal = (): void => { stop.abort(signal?.reason) }
    const onStop = (): void => {
      // Said before the answer began too: a 2025 session cancels by message (not on close: DELETE ends it all).
      if (options.cancel !== 'close') void this.notify(cancelledNotification(message.id, 'cancelled by the client')).catch(() => {})
      answer?.cancel()
    }
    signal?.addEventListener('abort', onSignal, { once: true })
    stop.signal.addEventListener('abort', onStop, { once: true })
    this.stops.add(stop)
    try {
      answer = await this.send('POST', { accept, 'content-type': 'application/json', ...options.headers }, JSON.stringify(message), stop.signal)
      const response = await this.read(answer, message.id, stop.signal)
      if (stop.signal.aborted) throw abortReason(stop.signal)
      return response
    } catch (error) {
      if (stop.signal.aborted) throw abortReason(stop.signal)
      throw error
    } finally {
      signal?.removeEventListener('abort', onSignal)
      this.stops.delete(stop)
    }
  }

  async notify (message: JsonRpcNotification | JsonRpcResponse, options: SendOptions = {}): Promise<void> {
    if (this.closed) return
    const answer = await this.send('POST', { accept: 'application/json, text/event-stream', 'content-type': 'application/json', ...options.headers }, JSON.stringify(message))
    const body = await drain(answer)
    if (answer.status >= 400) throw new TransportError(answer.status, answer.headers, parseBody(body))
  }

  async openEvents (headers: Record<string, string> = {}): Promise<void> {
    const answer = await this.send('GET', { accept: 'text/event-stream', ...headers })
    if (answer.status !== 200) throw new TransportError(answer.status, answer.headers, parseBody(await drain(answer)))
    void this.consume(answer, undefined).catch(() => {})
  }

  async close (): Promise<void> {
    this.closing ??= (async () => {
      this.closed = true
      for (const stop of this.stops) stop.abort(new McpError(ErrorCode.ConnectionClosed, 'The client closed the connection'))
      for (const answer of this.open) answer.cancel()
      this.open.clear()
      if (this.sessionId === undefined) return
      // The session's end, as a client leaving properly says it; a server that already forgot it is fine.
      const answer = await this.exchange({ method: 'DELETE', headers: this.headersWith({}) }).catch(() => undefined)
      if (answer !== undefined) await drain(answer).catch(() => '')
    })()
    await this.closing
  }

  private headersWith (extra: Record<string, string>): Record<string, string> {
    const headers: Record<string, string> = { ...this.baseHeaders }
    if (this.sessionId !== undefined) headers['mcp-session-id'] = this.sessionId
    if (this.protocolVersion !== undefined) headers['mcp-protocol-version'] = this.protocolVersion
    return { ...headers, ...extra }
  }

  private async send (method: HttpRequest['method'], headers: Record<string, string>, body?: string, signal?: AbortSignal): Promise<HttpAnswer> {
    if (this.closed) throw new McpError(ErrorCode.ConnectionClosed, 'The client is closed')
    const request: HttpRequest = { method, headers: this.headersWith(headers) }
    if (body !== undefined) request.body = body
    if (signal !== undefined) request.signal = signal
    const pending = this.exchange(request)
    // An answer that arrives after its request was abandoned is dropped, not left streaming.
    if (signal !== undefined) void pending.then((late) => { if (signal.aborted) late.cancel() }, () => {})
    const answer = await abortable(pending, signal)
    const session = answer.headers['mcp-session-id']
    if (session !== undefined && session !== '') this.sessionId = session
    return answer
  }

  /** The response to `id` from a POST's answer (a JSON body, or the event stream that ends with it). */
  private async read (answer: HttpAnswer, id: JsonRpcId, signal: AbortSignal | undefined): Promise<JsonRpcResponse> {
    const type = answer.headers['content-type'] ?? ''
    if (!type.startsWith('text/event-stream')) {
      const body = parseBody(await drain(answer))
      const classified = classifyMessage(body)
      if (classified.kind === 'response' && classified.message.id === id) return classified.message
      if (answer.status === 202) throw new McpError(ErrorCode.ConnectionClosed, 'The server accepted the request without answering it (HTTP 202)')
      throw new TransportError(answer.status, answer.headers, body)
    }
    if (answer.status !== 200) throw new TransportError(answer.status, answer.headers, parseBody(await drain(answer)))
    let current = answer
    for (let resumes = 0; ; resumes++) {
      const { response, lastEventId, retry } = await this.consume(current, id)
      if (response !== undefined) return response
      if (this.closed) throw new McpError(ErrorCode.ConnectionClosed, 'The client closed the connection')
      // Dropped by the client itself (a cancel): nothing to resume.
      if (signal?.aborted === true) throw abortReason(signal)
      // The server ended the stream before the answer (ctx.closeStream): a 2025 session resumes it.
      if (lastEventId === undefined || this.sessionId === undefined || resumes >= MAX_RESUMES) {
        throw new McpError(ErrorCode.ConnectionClosed, 'The server ended the answer\'s stream before the answer')
      }
      if (retry !== undefined) await sleep(Math.min(retry, 5000))
      current = await this.send('GET', { accept: 'text/event-stream', 'last-event-id': lastEventId })
      if (current.status !== 200) throw new TransportError(current.status, current.headers, parseBody(await drain(current)))
    }
  }

  /**
   * Reads an event stream to its end, or to the response to `id`: notifications go to the
   * inbound side, the server's requests are answered, and the last event id is kept for resuming.
   */
  private async consume (answer: HttpAnswer, id: JsonRpcId | undefined): Promise<{ response?: JsonRpcResponse, lastEventId?: string, retry?: number }> {
    this.open.add(answer)
    let lastEventId: string | undefined
    let retry: number | undefined
    try {
      for await (const event of readEvents(answer.body)) {
        if (event.id !== undefined && event.id !== '') lastEventId = event.id
        if (event.retry !== undefined) retry = event.retry
        const classified = classifyMessage(parseBody(event.data))
        if (classified.kind === 'response' && id !== undefined && classified.message.id === id) {
          answer.cancel()
          return { response: classified.message }
        }
        if (classified.kind === 'notification') this.inbound.notification(classified.message)
        else if (classified.kind === 'request') void this.answerServer(classified.message)
      }
    } catch {
      // A dropped connection ends the stream like its end does; the caller decides what that means.
    } finally {
      this.open.delete(answer)
    }
    return { lastEventId, retry }
  }

  private async answerServer (request: JsonRpcRequest): Promise<void> {
    const response = await answerServerRequest(this.inbound, request)
    await this.notify(response).catch(() => {})
  }
}

/** The promise, or the signal's reason as soon as it aborts. */
async function abortable<T> (promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return await promise
  if (signal.aborted) throw abortReason(signal)
  let onAbort = (): void => {}
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => { reject(abortReason(signal)) }
    signal.addEventListener('abort', onAbort, { once: true })
  })
  try {
    return await Promise.race([promise, aborted])
  } finally {
    signal.removeEventListener('abort', onAbort)
  }
}

/** The whole body as text. */
async function drain (answer: HttpAnswer): Promise<string> {
  const decoder = new TextDecoder()
  let text = ''
  for await (const chunk of answer.body) text += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true })
  return text + decoder.decode()
}

function parseBody (text: string): unknown {
  if (text === '') return ''
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}
