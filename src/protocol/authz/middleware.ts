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
  const result = await step(chain, 0, op, last)
  if (!op.notification && (typeof result !== 'object' || result === null || Array.isArray(result))) {
    throw new McpError(ErrorCode.InternalError, `The middleware chain of ${op.method} answered with no result object`)
  }
  return result
}

/**
 * The chain from `index` on. Not itself async: every call through the chain would otherwise add a
 * promise and its turns per middleware (the cost of one pass-through middleware is mostly that).
 * A middleware that throws at once throws here, into `runChain`, which turns it into a rejection.
 */
function step (chain: readonly Middleware[], index: number, op: Operation, last: (op: Operation) => Promise<Record<string, unknown> | undefined>): ReturnType<Middleware> {
  const middleware = chain[index]
  if (middleware === undefined) return last(op)
  let called = false
  return middleware(op, async () => {
    if (called) throw new McpError(ErrorCode.InternalError, 'A middleware called next() twice')
    called = true
    return await step(chain, index + 1, op, last)
  })
}
