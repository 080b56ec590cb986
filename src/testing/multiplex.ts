import type { Readable, Writable } from 'node:stream'
import { ErrorCode, McpError } from '../jsonrpc/errors.js'
import { classifyMessage, type JsonRpcId, type JsonRpcMessage, type JsonRpcNotification, type JsonRpcRequest, type JsonRpcResponse } from '../jsonrpc/messages.js'
import { abortReason, answerServerRequest, cancelledNotification, type Channel, type Inbound, type SendOptions } from './channel.js'

interface Pending {
  resolve: (response: JsonRpcResponse) => void
  reject: (error: Error) => void
}

/**
 * A channel where every message shares one path and responses find their request by id: stdio
 * (in memory or a child process), and the legacy HTTP+SSE transport. `write` puts one message on
 * the wire; whatever reads the wire hands each parsed value to {@link receive}.
 */
export class MultiplexChannel implements Channel {
  readonly kind: 'stream' | 'http'
  private readonly pending = new Map<JsonRpcId, Pending>()
  private readonly write: (message: JsonRpcMessage) => void | Promise<void>
  private readonly inbound: Inbound
  private readonly release: () => Promise<void>
  private closedWith: McpError | undefined
  private closing: Promise<void> | undefined

  constructor (kind: 'stream' | 'http', write: (message: JsonRpcMessage) => void | Promise<void>, inbound: Inbound, release: () => Promise<void>) {
    this.kind = kind
    this.write = write
    this.inbound = inbound
    this.release = release
  }

  async request (message: JsonRpcRequest, options: SendOptions = {}): Promise<JsonRpcResponse> {
    if (this.closedWith !== undefined) throw this.closedWith
    const { signal } = options
    if (signal?.aborted === true) throw abortReason(signal)
    const answered = new Promise<JsonRpcResponse>((resolve, reject) => { this.pending.set(message.id, { resolve, reject }) })
    // A failed send rejects it before anyone awaits it; the send's own error is the one thrown.
    answered.catch(() => {})
    const onAbort = (): void => {
      const pending = this.pending.get(message.id)
      if (pending === undefined) return
      this.pending.delete(message.id)
      // Told, then forgotten: an answer that crosses the cancel on the wire is dropped (MCP cancellation).
      if (options.cancel !== 'close') void this.send(cancelledNotification(message.id, 'cancelled by the client'))
      pending.reject(abortReason(signal as AbortSignal))
    }
    signal?.addEventListener('abort', onAbort, { once: true })
    try {
      await this.send(message)
      return await answered
    } finally {
      this.pending.delete(message.id)
      signal?.removeEventListener('abort', onAbort)
    }
  }

  async notify (message: JsonRpcNotification): Promise<void> {
    if (this.closedWith !== undefined) return
    await this.send(message)
  }

  /** One message from the server. */
  receive (value: unknown): void {
    const classified = classifyMessage(value)
    switch (classified.kind) {
      case 'response': {
        const { id } = classified.message
        const pending = id === null ? undefined : this.pending.get(id)
        if (pending === undefined) return
        this.pending.delete(id as JsonRpcId)
        pending.resolve(classified.message)
        return
      }
      case 'notification':
        this.inbound.notification(classified.message)
        return
      case 'request':
        void this.answer(classified.message)
    }
    // Anything else from the server has no one to go to: a client does not answer garbage.
  }

  /** The wire ended: every request still waiting fails with `reason` (the first reason given wins, and is returned). */
  ended (reason: string): McpError {
    const closed = this.closedWith ?? new McpError(ErrorCode.ConnectionClosed, reason)
    this.closedWith = closed
    for (const [id, pending] of this.pending) {
      this.pending.delete(id)
      pending.reject(closed)
    }
    return closed
  }

  async close (): Promise<void> {
    this.closing ??= (async () => {
      this.ended('The client closed the connection')
      await this.release()
    })()
    await this.closing
  }

  private async answer (request: JsonRpcRequest): Promise<void> {
    const response = await answerServerRequest(this.inbound, request)
    if (this.closedWith === undefined) await this.send(response)
  }

  private async send (message: JsonRpcMessage): Promise<void> {
    try {
      await this.write(message)
    } catch (error) {
      // A write that fails means the wire is gone: the requests waiting on it will never be answered.
      throw this.ended(`The connection failed: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
}

export interface LineChannelOptions {
  /** Releases the wire (stops the runner, ends the child process). */
  release: () => Promise<void>
  /** Told of each line that is not JSON. */
  onNoise?: (line: string) => void
  /** False: the end of the server's output does not end the channel (its owner calls `ended()`). Default true. */
  endsWithOutput?: boolean
}

/**
 * A multiplexed channel over newline-delimited JSON: `fromServer` is what the server writes (its
 * stdout), `toServer` what it reads (its stdin). Lines that are not JSON are handed to `onNoise`
 * (a server that prints to stdout breaks its own protocol; a client can say so).
 */
export function lineChannel (fromServer: Readable, toServer: Writable, inbound: Inbound, options: LineChannelOptions): MultiplexChannel {
  const channel = new MultiplexChannel('stream', async (message) => {
    if (toServer.destroyed || toServer.writableEnded) throw new Error('the server\'s input is closed')
    await new Promise<void>((resolve, reject) => {
      toServer.write(JSON.stringify(message) + '\n', (error) => { if (error === undefined || error === null) resolve(); else reject(error) })
    })
  }, inbound, options.release)
  let buffered = ''
  fromServer.setEncoding('utf8')
  fromServer.on('data', (chunk: string) => {
    buffered += chunk
    let newline = buffered.indexOf('\n')
    while (newline !== -1) {
      const line = buffered.slice(0, newline).trim()
      buffered = buffered.slice(newline + 1)
      newline = buffered.indexOf('\n')
      if (line === '') continue
      let value: unknown
      try {
        value = JSON.parse(line)
      } catch {
        options.onNoise?.(line)
        continue
      }
      channel.receive(value)
    }
  })
  // The owner of a process ends the channel itself, once it knows how the process ended.
  if (options.endsWithOutput !== false) fromServer.once('end', () => { channel.ended('The server closed the connection') })
  // Pipe errors come with the end of the process; the 'end' above (or close()) says what happened.
  toServer.on('error', () => {})
  return channel
}
