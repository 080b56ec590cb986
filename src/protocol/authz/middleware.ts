import { ErrorCode, McpError } from '../../jsonrpc/errors.js'
import type { Principal } from '../principal.js'
import type { TransportKind } from '../session.js'

/** One message from a client as the middleware chain sees it (`server.use(fn)`). */
export interface Operation {
  /** The JSON-RPC method: `tools/call`, `resources/list`, `notifications/cancelled`... */
  readonly method: string
  /** The tool or prompt name, or the resource URI, the request acts on; undefined for other methods. */
  readonly name: string | undefined
  /**
   * The params the handler will get. Writable: replace it (or change what it holds) to rewrite the
   * request. Rules were checked on the params as the client sent them: a middleware that points a
   * request at another definition checks that one's rules itself.
   */
  params: Record<string, unknown>
  /** The principal verified for the transport request that carried it; undefined without auth. */
  readonly principal: Principal | undefined
  /** The protocol version the message speaks. */
  readonly protocolVersion: string
  readonly transport: TransportKind
  /** True for a notification: no answer is sent, so what the chain returns is dropped. */
  readonly notification: boolean
}

/**
 * Runs around every request and notification from clients, on every transport and both protocol
 * generations. `await next()` runs the rest of the chain and the handler and gives their result;
 * returning without calling it answers with what is returned; throwing an `McpError` answers with
 * that error (anything else thrown is -32603, logged). `next` runs at most once.
 */
export type Middleware = (op: Operation, next: () => Promise<Record<string, unknown> | undefined>) =>
Promise<Record<string, unknown> | undefined> | Record<string, unknown> | undefined

/** Runs `chain` around `last`, in registration order (the first registered is the outermost). */
export async function runChain (chain: readonly Middleware[], op: Operation, last: (op: Operation) => Promise<Record<string, unknown> | undefined>): Promise<Record<string, unknown> | undefined> {
  const step = async (index: number): Promise<Record<string, unknown> | undefined> => {
    const middleware = chain[index]
    if (middleware === undefined) return await last(op)
    let called = false
    return await middleware(op, async () => {
      if (called) throw new McpError(ErrorCode.InternalError, 'A middleware called next() twice')
      called = true
      return await step(index + 1)
    })
  }
  const result = await step(0)
  if (!op.notification && (typeof result !== 'object' || result === null || Array.isArray(result))) {
    throw new McpError(ErrorCode.InternalError, `The middleware chain of ${op.method} answered with no result object`)
  }
  return result
}
