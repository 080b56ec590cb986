/** Longest delay Node's timers honour, in ms (2^31-1, about 24.8 days); a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1

/**
 * Calls `fn` at `deadline` (epoch ms), at once when it has passed; a deadline past Node's timer
 * range is waited for in steps. The timer is unref'd. Returns what cancels it.
 */
export function atDeadline (deadline: number, fn: () => void): () => void {
  let timer: NodeJS.Timeout | undefined
  const arm = (): void => {
    const delay = deadline - Date.now()
    if (delay <= 0) {
      timer = undefined
      fn()
      return
    }
    timer = setTimeout(arm, Math.min(delay, MAX_TIMER_MS))
    timer.unref()
  }
  arm()
  return () => { clearTimeout(timer) }
}
