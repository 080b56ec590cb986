// Waiting in tests: a sleep, and polling that always ends. A wait without a deadline turns a
// regression into a hang that tap reports two minutes later as a timeout, naming nothing; these
// fail at their deadline and say what never happened.

export const sleep = async (ms: number): Promise<void> => { await new Promise((resolve) => setTimeout(resolve, ms)) }

export interface UntilOptions {
  /** How long to keep polling, in ms. Default 5000. */
  timeoutMs?: number
  /** What is awaited, for the error at the deadline: "the GET stream to open". */
  what?: string
  /** Pause between two checks, in ms. Default 10. */
  everyMs?: number
}

/**
 * Polls `condition` until it holds; rejects at the deadline with `timed out after N ms waiting
 * for <what>`. A condition that throws rejects at once.
 */
export async function until (condition: () => boolean | Promise<boolean>, options: UntilOptions = {}): Promise<void> {
  if (await within(condition, options)) return
  throw new Error(`timed out after ${options.timeoutMs ?? 5000} ms waiting for ${options.what ?? 'a condition'}`)
}

/**
 * Whether `condition` came to hold within the deadline (polled like {@link until}): for a test
 * that then asserts the details of what is still missing, rather than a bare timeout.
 */
export async function within (condition: () => boolean | Promise<boolean>, { timeoutMs = 5000, everyMs = 10 }: UntilOptions = {}): Promise<boolean> {
  // performance.now(): a test may move Date.now (helpers/clock.ts), never this clock.
  const deadline = performance.now() + timeoutMs
  while (!await condition()) {
    if (performance.now() >= deadline) return false
    await sleep(everyMs)
  }
  return true
}

/**
 * Reads `read()` until `done(value)` and returns that value; rejects at the deadline, showing the
 * last value read. For state read over the wire: a task until it is terminal.
 */
export async function poll<T> (read: () => T | Promise<T>, done: (value: T) => boolean, options: UntilOptions = {}): Promise<T> {
  let last: T | undefined
  const reached = await within(async () => done(last = await read()), options)
  if (reached) return last as T
  throw new Error(`timed out after ${options.timeoutMs ?? 5000} ms waiting for ${options.what ?? 'a value'}; last read: ${JSON.stringify(last)}`)
}

/**
 * `promise`, or a rejection naming `what` once `timeoutMs` has passed: for one awaited event (a
 * frame, a line, an exit) that might never come.
 */
export async function deadline<T> (promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => { reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)) }, timeoutMs)
    timer.unref()
  })
  try {
    return await Promise.race([promise, late])
  } finally {
    clearTimeout(timer)
  }
}
