import type { ServerResponse } from 'node:http'
import { MAX_TIMER_MS } from '../../util/timers.js'

/**
 * Ends a stream opened with a credential when that credential stops being valid: `res` is ended
 * at `deadline` (epoch ms) unless it closed before. A token is verified once, when the stream
 * opens; without this a stream would go on delivering to a client whose token expired long ago.
 * Ending it makes the client come back with a valid credential (the auth guard checks it then).
 * One unref'd timer per stream, cleared when the stream closes.
 */
export function endAtDeadline (res: ServerResponse, deadline: number | undefined, end: () => void): void {
  if (deadline === undefined) return
  let timer: NodeJS.Timeout | undefined
  const arm = (): void => {
    const delay = deadline - Date.now()
    if (delay <= 0) {
      timer = undefined
      end()
      return
    }
    // A token valid for more than ~24.8 days: wait in steps.
    timer = setTimeout(arm, Math.min(delay, MAX_TIMER_MS))
    timer.unref()
  }
  arm()
  res.once('close', () => { clearTimeout(timer) })
}
