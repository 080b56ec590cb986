import type { ListenFilter, Notification, Subscription } from './types.js'

/**
 * The notifications of one listen, queued until read: `next()` and the async iterator read the
 * same queue, `received` keeps them all. The owner feeds it ({@link push}) and ends it
 * ({@link end}) when the server or the client ends the listen.
 */
export class ListenQueue implements Subscription {
  acknowledged: ListenFilter = {}
  readonly received: Notification[] = []
  private read = 0
  private waiter: (() => void) | undefined
  private endedWith: Error | undefined
  private readonly stop: () => Promise<void>
  private stopping: Promise<void> | undefined

  constructor (stop: () => Promise<void>) {
    this.stop = stop
  }

  push (notification: Notification): void {
    if (this.endedWith !== undefined) return
    this.received.push(notification)
    this.wake()
  }

  /** No more notifications will come; reads past the last one reject with `reason`. */
  end (reason: Error): void {
    this.endedWith ??= reason
    this.wake()
  }

  async next (timeoutMs = 5000): Promise<Notification> {
    while (this.read >= this.received.length) {
      if (this.endedWith !== undefined) throw this.endedWith
      await this.wait(timeoutMs)
    }
    return this.received[this.read++] as Notification
  }

  async close (): Promise<void> {
    this.stopping ??= (async () => {
      await this.stop()
      this.end(new Error('The listen was closed'))
    })()
    await this.stopping
  }

  async * [Symbol.asyncIterator] (): AsyncIterator<Notification> {
    while (true) {
      while (this.read < this.received.length) yield this.received[this.read++] as Notification
      if (this.endedWith !== undefined) return
      await this.wait(0)
    }
  }

  private async wait (timeoutMs: number): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      // A test awaiting next() waits for this timer (cleared on the next notification): it must hold the process.
      const timer = timeoutMs > 0
        ? setTimeout(() => {
          this.waiter = undefined
          reject(new Error(`No notification within ${timeoutMs} ms`))
        }, timeoutMs)
        : undefined
      this.waiter = () => {
        clearTimeout(timer)
        this.waiter = undefined
        resolve()
      }
    })
  }

  private wake (): void {
    this.waiter?.()
  }
}
