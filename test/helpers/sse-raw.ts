// A legacy SSE stream read raw: for what the SDK client hides (headers, the endpoint event,
// keep-alive comments). Every read has a deadline, so a frame that never comes fails the test
// with what was awaited instead of hanging it.
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http'
import { deadline } from './wait.js'

/** How long a read waits for a frame by default, in ms: far more than any test needs. */
const READ_TIMEOUT_MS = 30_000

export interface RawStream {
  response: IncomingMessage
  request: ClientRequest
  /** The next complete SSE frame (comments included, as `: text`); rejects after `timeoutMs`. */
  next: (timeoutMs?: number) => Promise<string>
  /** The next frame `match` accepts, skipping the others; rejects after `timeoutMs`. */
  nextMatching: (match: (frame: string) => boolean, timeoutMs?: number) => Promise<string>
  /** Every frame that arrives within `ms` (for "nothing more comes"). */
  framesWithin: (ms: number) => Promise<string[]>
  /** Frames received and not consumed yet. */
  readonly buffered: string[]
  /** Drops the connection. */
  destroy: () => void
}

/** A raw HTTP GET on an event stream, its frames split on blank lines. */
export async function openRawStream (url: string, headers: Record<string, string> = {}): Promise<RawStream> {
  const request = httpRequest(url, { headers: { accept: 'text/event-stream', ...headers } })
  request.end()
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    request.once('response', resolve)
    request.once('error', reject)
  })
  const buffered: string[] = []
  const waiters: Array<(frame: string) => void> = []
  let pending = ''
  response.setEncoding('utf8')
  response.on('data', (chunk: string) => {
    pending += chunk
    let end = pending.indexOf('\n\n')
    while (end !== -1) {
      const frame = pending.slice(0, end)
      pending = pending.slice(end + 2)
      const waiter = waiters.shift()
      if (waiter !== undefined) waiter(frame)
      else buffered.push(frame)
      end = pending.indexOf('\n\n')
    }
  })
  response.on('error', () => {})
  request.on('error', () => {})
  /** The next frame; `settle(used)` after a race: an unused frame goes back to the front. */
  const take = (): { frame: Promise<string>, settle: (used: boolean) => void } => {
    const ready = buffered.shift()
    if (ready !== undefined) return { frame: Promise.resolve(ready), settle: (used) => { if (!used) buffered.unshift(ready) } }
    let delivered: string | undefined
    let waiter!: (frame: string) => void
    const frame = new Promise<string>((resolve) => {
      waiter = (got) => { delivered = got; resolve(got) }
      waiters.push(waiter)
    })
    const settle = (used: boolean): void => {
      const index = waiters.indexOf(waiter)
      if (index !== -1) waiters.splice(index, 1)
      else if (!used && delivered !== undefined) buffered.unshift(delivered)
    }
    return { frame, settle }
  }
  /** The next frame within `timeoutMs`, or undefined. */
  const within = async (timeoutMs: number): Promise<string | undefined> => {
    const { frame, settle } = take()
    const got = await deadline(frame, timeoutMs, 'a frame').catch(() => undefined)
    settle(got !== undefined)
    return got
  }
  return {
    response,
    request,
    buffered,
    next: async (timeoutMs = READ_TIMEOUT_MS) => {
      const frame = await within(timeoutMs)
      if (frame === undefined) throw new Error(`timed out after ${timeoutMs} ms waiting for an SSE frame on ${url}`)
      return frame
    },
    nextMatching: async (match, timeoutMs = READ_TIMEOUT_MS) => {
      const end = performance.now() + timeoutMs
      for (let left = timeoutMs; left > 0; left = end - performance.now()) {
        const frame = await within(left)
        if (frame === undefined) break
        if (match(frame)) return frame
      }
      throw new Error(`timed out after ${timeoutMs} ms waiting for a matching SSE frame on ${url}`)
    },
    framesWithin: async (ms) => {
      const frames: string[] = []
      const end = performance.now() + ms
      for (let left = ms; left > 0; left = end - performance.now()) {
        const frame = await within(left)
        if (frame === undefined) break
        frames.push(frame)
      }
      return frames
    },
    destroy: () => { request.destroy() }
  }
}

/** The `data:` of an `endpoint` frame. */
export function endpointOf (frame: string): string {
  const match = /^event: endpoint\ndata: (.*)$/.exec(frame)
  if (match?.[1] === undefined) throw new Error(`not an endpoint event: ${frame}`)
  return match[1]
}
