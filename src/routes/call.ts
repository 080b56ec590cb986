import type { FastifyInstance, InjectOptions } from 'fastify'
import type { HandlerContext } from '../protocol/context.js'
import type { ToolHandler } from '../protocol/definitions.js'
import { kOnAbort, type AbortListener } from '../protocol/inflight.js'
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
 * When the call is cancelled (`ctx.signal`) the tool call ends at once, and the route, already
 * running, goes on to its end: Node cannot stop a handler from outside, and its answer is dropped.
 * (Handing the signal to inject() as well, so that the route's request would be destroyed, cost
 * 6 % of every route call in benchmarks/routes.js, for routes that could not stop anyway.)
 */
export function routeHandler (app: FastifyInstance, target: RouteTarget): ToolHandler<Record<string, unknown>> {
  return async (args, ctx) => {
    const placed = target.input.place(args)
    const http = ctx.http
    // The caller's headers last: no argument may stand in for the credential or an allow-listed header.
    const headers = http === undefined ? placed.headers : Object.assign(placed.headers, http.forwardable(target.forwardHeaders))
    // Built here, so light-my-request need not check them again on every call (its ajv check showed in profiles).
    const options: InjectOptions & { validate: false } = { method: target.method as InjectOptions['method'], url: placed.path, headers, validate: false }
    if (placed.query !== undefined) options.query = placed.query
    if (placed.body !== undefined) options.payload = placed.body as InjectOptions['payload']
    const remoteAddress = http?.remoteAddress
    if (remoteAddress !== undefined) options.remoteAddress = remoteAddress
    const response = await untilAborted(app.inject(options), ctx)
    return toToolResult(response, () => resourceUri(ctx, placed.path))
  }
}

/** A ctx that tells of an abort without an AbortController (a request's; a task's has only `signal`). */
type Watchable = HandlerContext & { [kOnAbort]?: (listener: AbortListener) => () => void }

/**
 * Settles with `work`, or rejects with the abort reason as soon as the call is aborted. One
 * promise and one listener per call, and no AbortController: on a route tool's path, making one
 * and listening to it cost more than all the rest of the tool's own work.
 */
async function untilAborted (work: Promise<RouteResponse>, ctx: Watchable): Promise<RouteResponse> {
  const watch = ctx[kOnAbort]
  return await new Promise((resolve, reject) => {
    /* c8 ignore next: a task's ctx has no kOnAbort, and route tools never run as tasks */
    const stop = watch === undefined ? listen(ctx.signal, reject) : watch.call(ctx, reject)
    // After an abort, the route's answer (or failure) is nobody's: settling again does nothing.
    work.then((response) => {
      stop()
      resolve(response)
    }, (error: unknown) => {
      stop()
      reject(error)
    })
  })
}

/* c8 ignore start: see above */
function listen (signal: AbortSignal, listener: AbortListener): () => void {
  const onAbort = (): void => { listener(signal.reason) }
  if (signal.aborted) onAbort()
  else signal.addEventListener('abort', onAbort, { once: true })
  return () => { signal.removeEventListener('abort', onAbort) }
}
/* c8 ignore stop */

/** Names a binary answer: the route's URL on the host the client called. */
function resourceUri (ctx: HandlerContext, path: string): string {
  const host = ctx.http?.headers.host ?? 'localhost'
  try {
    return new URL(path, `http://${host}`).href
  } catch {
    return new URL(path, 'http://localhost').href
  }
}
