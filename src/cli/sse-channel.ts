import type { Inbound } from '../testing/channel.js'
import { MultiplexChannel } from '../testing/multiplex.js'
import { readEvents } from '../testing/sse.js'
import { TransportError } from '../testing/transport-error.js'
import { emptyBody, headersOf, unreachable } from './fetch.js'

/**
 * The legacy HTTP+SSE transport (MCP 2024-11-05) from the client side, the last fallback of a
 * URL: a GET opens the event stream, whose first `endpoint` event names where to POST messages;
 * every answer comes back on the stream.
 */
export async function openSseChannel (url: URL, headers: Record<string, string>, inbound: Inbound): Promise<MultiplexChannel> {
  const controller = new AbortController()
  let response: Response
  try {
    response = await fetch(url, { headers: { ...headers, accept: 'text/event-stream' }, signal: controller.signal })
  } catch (error) {
    throw unreachable(url, error)
  }
  const type = response.headers.get('content-type') ?? ''
  if (response.status !== 200 || !type.startsWith('text/event-stream')) {
    const text = await response.text().catch(() => '')
    let body: unknown = text
    try { body = JSON.parse(text) } catch {}
    throw new TransportError(response.status, headersOf(response), body)
  }
  const events = readEvents(response.body ?? emptyBody())[Symbol.asyncIterator]()
  let endpoint: URL | undefined
  while (endpoint === undefined) {
    const next = await events.next()
    if (next.done === true) throw new TransportError(response.status, headersOf(response), 'the event stream ended before naming its message endpoint')
    if (next.value.event === 'endpoint') endpoint = new URL(next.value.data, url)
  }
  const post = endpoint
  const channel = new MultiplexChannel('http', async (message) => {
    const answer = await fetch(post, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(message) })
    const text = await answer.text()
    if (answer.status >= 400) throw new TransportError(answer.status, headersOf(answer), text)
  }, inbound, async () => { controller.abort() })
  void (async () => {
    try {
      for (let next = await events.next(); next.done !== true; next = await events.next()) {
        if (next.value.event !== 'message') continue
        try {
          channel.receive(JSON.parse(next.value.data))
        } catch {
          // Not JSON: nothing a client can answer.
        }
      }
    } catch {
      // The stream broke: the same as its end.
    }
    channel.ended('The server closed the event stream')
  })()
  return channel
}
