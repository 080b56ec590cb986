import type { ServerResponse } from 'node:http'
import { atDeadline } from '../../util/timers.js'

/**
 * Ends a stream opened with a credential when that credential stops being valid: `res` is ended
 * at `deadline` (epoch ms) unless it closed before. A token is verified once, when the stream
 * opens; without this a stream would go on delivering to a client whose token expired long ago.
 * Ending it makes the client come back with a valid credential (the auth guard checks it then).
 * One unref'd timer per stream, cleared when the stream closes.
 */
export function endAtDeadline (res: ServerResponse, deadline: number | undefined, end: () => void): void {
  if (deadline === undefined) return
  const cancel = atDeadline(deadline, end)
  res.once('close', cancel)
}
