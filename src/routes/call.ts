import type { FastifyInstance, InjectOptions } from 'fastify'
import type { HandlerContext } from '../protocol/context.js'
import type { ToolHandler } from '../protocol/definitions.js'
import type { RouteInput } from './input.js'
import { toToolResult, type RouteResponse } from './result.js'

/** What calling one route needs. */
export interface RouteTarget {
  readonly method: string
  readonly input: RouteInput
  /** Request headers passed on besides the credential (`routes.forwardHeaders`). */
  readonly forwardHeaders: readonly string[]
}

/**
 * The handler of a route tool: the arguments put back into path, query string, headers and body,
 * and the route run in-process through `app.inject()` with the caller's credential and the
 * allow-listed headers, so the route's own hooks (auth, validation, serialization) decide exactly
 * as for a direct call; the caller's address goes along as the request's remote address.
 *
 * When the call is cancelled (`ctx.signal`) the tool call ends at once; the route's request is
 * aborted too, but a route already running goes on to its end (its answer is dropped): Node
 * cannot stop a handler from outside. Routes that must stop early read `request.raw.destroyed`.
 */
export function routeHandler (app: FastifyInstance, target: RouteTarget): ToolHandler<Record<string, unknown>> {
  return async (args, ctx) => {
    const placed = target.input.place(args)
    const http = ctx.http
    const signal = ctx.signal
    const options: InjectOptions & { signal?: AbortSignal } = {
      method: target.method as InjectOptions['method'],
      url: placed.path,
      query: placed.query,
      headers: { ...placed.headers, ...http?.forwardable(target.forwardHeaders) },
      signal
    }
    if (placed.body !== undefined) options.payload = placed.body as InjectOptions['payload']
    const remoteAddress = http?.remoteAddress
    if (remoteAddress !== undefined) options.remoteAddress = remoteAddress
    const response = await untilAborted(app.inject(options), signal)
    return toToolResult(response, () => resourceUri(ctx, placed.path))
  }
}

/** Settles with `work`, or rejects with the abort reason as soon as `signal` aborts. */
async function untilAborted (work: Promise<RouteResponse>, signal: AbortSignal): Promise<RouteResponse> {
  signal.throwIfAborted()
  let onAbort = (): void => {}
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => { reject(signal.reason) }
    signal.addEventListener('abort', onAbort, { once: true })
  })
  try {
    return await Promise.race([work, aborted])
  } finally {
    signal.removeEventListener('abort', onAbort)
    // An answer that comes after the abort is nobody's: it must not become an unhandled rejection.
    work.catch(() => {})
  }
}

/** Names a binary answer: the route's URL on the host the client called. */
function resourceUri (ctx: HandlerContext, path: string): string {
  const host = ctx.http?.headers.host ?? 'localhost'
  try {
    return new URL(path, `http://${host}`).href
  } catch {
    return new URL(path, 'http://localhost').href
  }
}
