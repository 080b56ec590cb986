import { ProtocolServer, type CoreOptions } from '../../src/protocol/protocol-server.js'
import type { Principal } from '../../src/protocol/principal.js'
import { classifyMessage, type JsonRpcMessage } from '../../src/jsonrpc/messages.js'
import { Session } from '../../src/protocol/session.js'
import { testCaller } from './caller.js'

/** A core with sessions on in-memory channels: for protocol edge cases without a transport. */
export function memoryCore (options: { pageSize?: number, requestTimeoutMs?: number, tasks?: CoreOptions['tasks'], taskStore?: CoreOptions['taskStore'] } = {}) {
  const logged: Array<{ details: Record<string, unknown>, message: string }> = []
  const core = new ProtocolServer({
    name: 'memory',
    version: '1.0.0',
    pageSize: options.pageSize ?? 100,
    requestTimeoutMs: options.requestTimeoutMs ?? 1000,
    logger: { error: (details, message) => { logged.push({ details, message }) } },
    tasks: options.tasks,
    taskStore: options.taskStore
  })
  let ids = 0
  function connect () {
    const sent: any[] = []
    let closed = 0
    const session = new Session(`s${++ids}`, {
      send: (message: JsonRpcMessage) => { sent.push(message) },
      close: () => { closed++ }
    })
    core.addSession(session)
    let nextId = 1
    async function request (method: string, params?: Record<string, unknown>): Promise<any> {
      const id = nextId++
      await core.dispatcher.dispatch(session, classifyMessage({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }), testCaller())
      return sent.find((message) => message.id === id)
    }
    async function notify (method: string, params?: Record<string, unknown>): Promise<void> {
      await core.dispatcher.dispatch(session, classifyMessage({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) }), testCaller())
    }
    async function initialize (protocolVersion = '2025-11-25', capabilities: Record<string, unknown> = {}): Promise<any> {
      return await request('initialize', { protocolVersion, capabilities, clientInfo: { name: 'mem', version: '0' } })
    }
    return { session, sent, request, notify, initialize, closedCount: () => closed }
  }
  /**
   * A 2026-07-28 client: every request goes through its own throwaway session,
   * ready at once, with the capabilities and principal of that request, closed
   * as soon as the answer is out (what the stateless route does).
   */
  function modern (options: { capabilities?: Record<string, unknown>, principal?: Principal } = {}) {
    let nextId = 1
    async function request (method: string, params?: Record<string, unknown>): Promise<any> {
      const sent: any[] = []
      const session = new Session(`m${++ids}`, { send: (message: JsonRpcMessage) => { sent.push(message) }, close: () => {} }, options.principal)
      session.generation = 'modern'
      session.state = 'ready'
      session.protocolVersion = '2026-07-28'
      session.clientCapabilities = options.capabilities ?? {}
      const id = nextId++
      try {
        await core.dispatcher.dispatch(session, classifyMessage({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }), testCaller(options.principal))
      } finally {
        session.close('stateless request answered')
      }
      return sent.find((message) => message.id === id)
    }
    return { request }
  }
  return { core, connect, modern, logged }
}
