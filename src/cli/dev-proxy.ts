import type { Readable, Writable } from 'node:stream'
import { ErrorCode } from '../jsonrpc/errors.js'
import { classifyMessage, failure, type JsonRpcId, type JsonRpcRequest } from '../jsonrpc/messages.js'

/** Splits a stream into lines and hands each one over. */
export function onLines (stream: Readable, handle: (line: string) => void): void {
  let buffered = ''
  stream.setEncoding('utf8')
  stream.on('data', (chunk: string) => {
    buffered += chunk
    let newline = buffered.indexOf('\n')
    while (newline !== -1) {
      const line = buffered.slice(0, newline)
      buffered = buffered.slice(newline + 1)
      newline = buffered.indexOf('\n')
      if (line.trim() !== '') handle(line)
    }
  })
}

const LIST_CHANGES = ['notifications/tools/list_changed', 'notifications/prompts/list_changed', 'notifications/resources/list_changed']

/** A JSON-RPC id as a map key (`1` and `"1"` are different ids). */
const keyOf = (id: JsonRpcId): string => JSON.stringify(id)

/**
 * `dev` on stdio: the host talks to this process, which forwards every line to the current
 * server process and back, so that the server can be restarted under a host that keeps running.
 * Across a restart:
 *
 * - a 2025 session survives: its `initialize` (and `notifications/initialized`, the log level,
 *   the resource subscriptions) is replayed to the new process, whose answers stay here, and the
 *   host is told that every list changed;
 * - a request the old process never answered is answered with an error saying so (the host
 *   sends it again); a 2026-07-28 client has nothing else to carry over (no session);
 * - while the file does not run (a syntax error), requests are answered with an error at once,
 *   and lines sent during a restart wait for the new process.
 */
export class StdioProxy {
  private readonly toHost: Writable
  private server: Writable | undefined
  private state: 'starting' | 'running' | 'down' = 'starting'
  /** Lines from the host while no process runs, with the id of each request among them. */
  private readonly waiting: Array<{ line: string, id: JsonRpcId | undefined }> = []
  /** Host requests forwarded and not answered yet. */
  private readonly pending = new Map<string, JsonRpcId>()
  /** Ids of the requests this proxy made itself (replays): their answers stay here. */
  private readonly own = new Set<string>()
  private initialize: JsonRpcRequest | undefined
  private initialized = false
  private logLevel: Record<string, unknown> | undefined
  private readonly subscriptions = new Set<string>()
  private replays = 0

  constructor (fromHost: Readable, toHost: Writable) {
    this.toHost = toHost
    onLines(fromHost, (line) => { this.fromHost(line) })
  }

  /** A new server process is ready to take lines: replay the session, then what waited. */
  attach (toServer: Writable, fromServer: Readable, restarted: boolean): void {
    this.server = toServer
    toServer.on('error', () => {})
    // A process being replaced may still write: only the current one speaks to the host.
    onLines(fromServer, (line) => { if (this.server === toServer) this.fromServer(line) })
    if (restarted && this.initialize !== undefined) {
      this.replay(this.initialize.method, this.initialize.params)
      if (this.initialized) this.write({ jsonrpc: '2.0', method: 'notifications/initialized' })
      if (this.logLevel !== undefined) this.replay('logging/setLevel', this.logLevel)
      for (const uri of this.subscriptions) this.replay('resources/subscribe', { uri })
      for (const method of LIST_CHANGES) this.toHost.write(JSON.stringify({ jsonrpc: '2.0', method }) + '\n')
    }
    this.state = 'running'
    for (const { line, id } of this.waiting.splice(0)) this.toServer(line, id)
  }

  /** The server process is gone: what it owed the host is answered now. `restarting`: the next one is on its way. */
  detach (restarting: boolean, why: string): void {
    this.server = undefined
    this.state = restarting ? 'starting' : 'down'
    for (const id of this.pending.values()) this.answerError(id, `The server ${why} before answering (fastify-mcp-server dev): send the request again`)
    this.pending.clear()
    this.own.clear()
    if (restarting) return
    for (const { id } of this.waiting.splice(0)) if (id !== undefined) this.answerError(id, `The server ${why}: fix it and save a file to restart it (fastify-mcp-server dev)`)
  }

  private fromHost (line: string): void {
    let value: unknown
    try {
      value = JSON.parse(line)
    } catch {
      // The server answers a parse error itself.
      this.toServer(line, undefined)
      return
    }
    const classified = classifyMessage(value)
    let id: JsonRpcId | undefined
    if (classified.kind === 'request') {
      const { method, params } = classified.message
      id = classified.message.id
      if (this.state === 'down') {
        this.answerError(id, 'The server is not running: it failed to start (see the dev output); save a file to restart it')
        return
      }
      if (method === 'initialize') this.initialize = classified.message
      else if (method === 'logging/setLevel') this.logLevel = params
      else if (method === 'resources/subscribe' && typeof params?.uri === 'string') this.subscriptions.add(params.uri)
      else if (method === 'resources/unsubscribe' && typeof params?.uri === 'string') this.subscriptions.delete(params.uri)
    } else if (classified.kind === 'notification' && classified.message.method === 'notifications/initialized') {
      this.initialized = true
    }
    if (this.state === 'down') return
    this.toServer(line, id)
  }

  private fromServer (line: string): void {
    let value: unknown
    try {
      value = JSON.parse(line)
    } catch {
      this.toHost.write(line + '\n')
      return
    }
    const classified = classifyMessage(value)
    if (classified.kind === 'response' && classified.message.id !== null) {
      const key = keyOf(classified.message.id)
      if (this.own.delete(key)) return
      this.pending.delete(key)
    }
    this.toHost.write(line + '\n')
  }

  private toServer (line: string, id: JsonRpcId | undefined): void {
    if (this.state !== 'running' || this.server === undefined) {
      this.waiting.push({ line, id })
      return
    }
    if (id !== undefined) this.pending.set(keyOf(id), id)
    this.server.write(line + '\n')
  }

  private replay (method: string, params: Record<string, unknown> | undefined): void {
    const id = `fastify-mcp-server-dev-${++this.replays}`
    this.own.add(keyOf(id))
    this.write({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) })
  }

  private write (message: Record<string, unknown>): void {
    this.server?.write(JSON.stringify(message) + '\n')
  }

  private answerError (id: JsonRpcId, message: string): void {
    this.toHost.write(JSON.stringify(failure(id, ErrorCode.InternalError, message)) + '\n')
  }
}
