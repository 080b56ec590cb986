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

  abort (reason: unknown): void {
    if (this.abortedFlag) return
    this.abortedFlag = true
    this.reason = reason
    this.controller?.abort(reason)
  }
}
