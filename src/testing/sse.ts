/** One server-sent event, as the event-stream format defines it. */
export interface SseEvent {
  event: string
  data: string
  id: string | undefined
  /** The reconnection delay the server asked for, in ms. */
  retry: number | undefined
}

/**
 * The events of a `text/event-stream` body, in order, as its bytes arrive (WHATWG HTML, "Parsing
 * an event stream"): `data` lines joined with newlines, comments and empty events skipped.
 */
export async function * readEvents (body: AsyncIterable<Uint8Array | string>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder()
  let text = ''
  let event = ''
  let data: string[] = []
  let id: string | undefined
  let retry: number | undefined
  for await (const chunk of body) {
    text += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true })
    let end = nextLineEnd(text)
    while (end !== -1) {
      const line = text.slice(0, end)
      text = text.slice(text[end] === '\r' && text[end + 1] === '\n' ? end + 2 : end + 1)
      end = nextLineEnd(text)
      if (line === '') {
        if (data.length > 0) yield { event: event === '' ? 'message' : event, data: data.join('\n'), id, retry }
        event = ''
        data = []
        retry = undefined
        continue
      }
      if (line.startsWith(':')) continue
      const colon = line.indexOf(':')
      const field = colon === -1 ? line : line.slice(0, colon)
      let value = colon === -1 ? '' : line.slice(colon + 1)
      if (value.startsWith(' ')) value = value.slice(1)
      if (field === 'data') data.push(value)
      else if (field === 'event') event = value
      else if (field === 'id') id = value
      else if (field === 'retry' && /^\d+$/.test(value)) retry = Number(value)
    }
  }
}

function nextLineEnd (text: string): number {
  const lf = text.indexOf('\n')
  const cr = text.indexOf('\r')
  if (cr === -1) return lf
  // A lone CR at the very end may be the first half of CRLF: wait for the next chunk.
  if (cr === text.length - 1) return lf
  return lf === -1 ? cr : Math.min(lf, cr)
}
