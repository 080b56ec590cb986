/** An abort listener; see {@link InflightRequest.onAbort}. */
export type AbortListener = (reason: unknown) => void

/**
 * Where a handler's ctx offers {@link InflightRequest.onAbort} (internal: route tools use it, see
 * routes/call.ts). A symbol, so that it stays out of the public `HandlerContext`.
 */
export const kOnAbort = Symbol('fastify-mcp-server.onAbort')

/**
 * One client request being handled. Most handlers never look at `ctx.signal`,
 * and an AbortController is one of the costlier objects Node makes per call,
 * so the controller is created only when someone asks for the signal; an
 * abort before that is remembered and applied on creation.
 */
export class InflightRequest {
  private controller: AbortController | undefined
  private reason: unknown
  private abortedFlag = false
  private listeners: AbortListener[] | undefined

  get aborted (): boolean {
    return this.abortedFlag
  }

  get signal (): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController()
      if (this.abortedFlag) this.controller.abort(this.reason)
    }
    return this.controller.signal
  }

  /**
   * Calls `listener` once when the request is aborted (at once if it was already); returns what
   * removes it. What `signal` does for a handler that only needs to know, without the
   * AbortController: making one and listening to it costs more than a route tool's own work
   * (benchmarks/routes.js).
   */
  onAbort (listener: AbortListener): () => void {
    if (this.abortedFlag) {
      listener(this.reason)
      return () => {}
    }
    (this.listeners ??= []).push(listener)
    return () => {
      const index = this.listeners?.indexOf(listener) ?? -1
      if (index !== -1) this.listeners?.splice(index, 1)
    }
  }

  abort (reason: unknown): void {
    if (this.abortedFlag) return
    this.abortedFlag = true
    this.reason = reason
    this.controller?.abort(reason)
    const listeners = this.listeners
    this.listeners = undefined
    if (listeners !== undefined) for (const listener of listeners) listener(reason)
  }
}
