import type { OutgoingHttpHeaders, ServerResponse } from 'node:http'

/** Headers of every event stream; proxies must neither buffer nor transform it. */
export const SSE_HEADERS: Readonly<OutgoingHttpHeaders> = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no'
}

export interface SseStreamOptions {
  /** Bytes allowed to wait in the response and socket buffers before the client is cut off. */
  maxQueuedBytes: number
  /** Called once when the client is cut off for not reading (the response is already destroyed). */
  onOverflow: () => void
}

let cachedJson: string | undefined
let cachedFrame: Buffer | undefined

/**
 * The `message` event for a serialized JSON-RPC message, encoded once. A
 * broadcast hands every session the same string: building and UTF-8 encoding
 * the frame once instead of once per session is what keeps a 10,000-session
 * broadcast close to the cost of the socket writes themselves.
 */
export function messageFrame (json: string): Buffer {
  if (json !== cachedJson || cachedFrame === undefined) {
    cachedJson = json
    cachedFrame = Buffer.from(`event: message\ndata: ${json}\n\n`)
  }
  return cachedFrame
}

/**
 * One Server-Sent Events response written straight to the raw response (the
 * Fastify reply is hijacked). The outbound queue is bounded: a client that
 * stops reading lets bytes pile up in Node's buffers, and once more than
 * `maxQueuedBytes` wait there the stream is destroyed instead of growing.
 */
export class SseStream {
  readonly res: ServerResponse
  private readonly options: SseStreamOptions
  private done = false

  constructor (res: ServerResponse, options: SseStreamOptions) {
    this.res = res
    this.options = options
    // The socket going away (client disconnect, destroy) ends the stream for good.
    res.once('close', () => { this.done = true })
  }

  /** True once ended, destroyed or disconnected: nothing more will be written. */
  get closed (): boolean {
    return this.done || this.res.destroyed || this.res.writableEnded
  }

  /** Sends the status line and headers now, so the client sees the stream open. */
  open (headers: OutgoingHttpHeaders = {}): void {
    this.res.writeHead(200, { ...headers, ...SSE_HEADERS })
    this.res.flushHeaders()
  }

  /** Writes one event. `data` may span lines; each becomes its own `data:` field. */
  event (name: string, data: string, id?: string): boolean {
    const lines = data.includes('\n') || data.includes('\r') ? data.split(/\r\n|\r|\n/) : [data]
    let frame = `event: ${name}\n`
    if (id !== undefined) frame += `id: ${id}\n`
    for (const line of lines) frame += `data: ${line}\n`
    return this.write(frame + '\n')
  }

  /** A JSON-RPC message, already serialized (JSON.stringify never emits raw newlines). */
  message (json: string, id?: string): boolean {
    return this.write(id === undefined ? `event: message\ndata: ${json}\n\n` : `event: message\nid: ${id}\ndata: ${json}\n\n`)
  }

  /** A frame built once for many streams (see {@link messageFrame}). */
  frame (frame: Buffer): boolean {
    return this.write(frame)
  }

  /**
   * An event with an id, a reconnection delay and empty data (MCP 2025-11-25
   * "priming"): clients record the id as their resume point and dispatch nothing.
   */
  prime (id: string, retryMs: number): boolean {
    return this.write(`id: ${id}\nretry: ${retryMs}\ndata: \n\n`)
  }

  /** A comment line: keeps proxies and load balancers from timing the stream out. */
  comment (text: string): boolean {
    return this.write(`: ${text}\n\n`)
  }

  /** Ends the response politely (server shutdown, idle timeout, session closed). */
  end (): void {
    if (this.closed) return
    this.done = true
    this.res.end()
  }

  /** Drops the connection at once, whatever is still buffered. */
  destroy (): void {
    this.done = true
    if (!this.res.destroyed) this.res.destroy()
  }

  private write (chunk: string | Buffer): boolean {
    if (this.closed) return false
    // writableLength counts the response's own buffer plus the socket's: what the peer has not taken yet.
    if (this.res.writableLength > this.options.maxQueuedBytes) {
      this.destroy()
      this.options.onOverflow()
      return false
    }
    this.res.write(chunk)
    return true
  }
}

/**
 * One keep-alive timer for every open stream (10,000 streams must not mean
 * 10,000 intervals). Runs only while streams are open; unref'd so it never
 * holds the process open.
 */
export class StreamSet {
  private readonly streams = new Set<SseStream>()
  private readonly intervalMs: number
  private timer: NodeJS.Timeout | undefined

  constructor (keepAliveIntervalMs: number) {
    this.intervalMs = keepAliveIntervalMs
  }

  /** Streams open now (the telemetry gauge reads it). */
  get size (): number {
    return this.streams.size
  }

  /** Tracks a stream until its response closes. */
  add (stream: SseStream): void {
    this.streams.add(stream)
    stream.res.once('close', () => { this.delete(stream) })
    if (this.timer === undefined) {
      this.timer = setInterval(() => { this.tick() }, this.intervalMs)
      this.timer.unref()
    }
  }

  delete (stream: SseStream): void {
    this.streams.delete(stream)
    if (this.streams.size === 0) this.stopTimer()
  }

  /**
   * Server shutdown: destroys what is left. Sessions were closed (and their
   * streams ended) in preClose; a stream still unfinished here could not flush
   * because its client stopped reading. Node drops such connections itself when
   * it closes idle ones, but a custom server (serverFactory) need not.
   */
  closeAll (): void {
    for (const stream of [...this.streams]) if (!stream.res.writableFinished) stream.destroy()
    this.streams.clear()
    this.stopTimer()
  }

  private tick (): void {
    // A copy: a write may cut off a slow client, which removes it from the set.
    for (const stream of [...this.streams]) stream.comment('keepalive')
  }

  private stopTimer (): void {
    if (this.timer !== undefined) clearInterval(this.timer)
    this.timer = undefined
  }
}
