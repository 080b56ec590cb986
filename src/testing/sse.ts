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
  const parser = new EventParser()
  for await (const chunk of body) {
    yield * parser.feed(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }), false)
  }
  // At the end a lone CR is a whole line end: nothing can follow it.
  yield * parser.feed(decoder.decode(), true)
}

/** The parser's state between chunks: the unfinished line and the event being built. */
class EventParser {
  private text = ''
  private event = ''
  private data: string[] = []
  private id: string | undefined
  private retry: number | undefined

  * feed (chunk: string, last: boolean): Generator<SseEvent> {
    this.text += chunk
    for (let end = nextLineEnd(this.text, last); end !== -1; end = nextLineEnd(this.text, last)) {
      const line = this.text.slice(0, end)
      this.text = this.text.slice(this.text[end] === '\r' && this.text[end + 1] === '\n' ? end + 2 : end + 1)
      const event = this.line(line)
      if (event !== undefined) yield event
    }
  }

  /** One line; the event it completes, if it is the blank line that ends one. */
  private line (line: string): SseEvent | undefined {
    if (line === '') {
      const event = this.data.length > 0 ? { event: this.event === '' ? 'message' : this.event, data: this.data.join('\n'), id: this.id, retry: this.retry } : undefined
      this.event = ''
      this.data = []
      this.retry = undefined
      return event
    }
    if (line.startsWith(':')) return undefined
    const colon = line.indexOf(':')
    const field = colon === -1 ? line : line.slice(0, colon)
    let value = colon === -1 ? '' : line.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    if (field === 'data') this.data.push(value)
    else if (field === 'event') this.event = value
    else if (field === 'id') this.id = value
    else if (field === 'retry' && /^\d+$/.test(value)) this.retry = Number(value)
    return undefined
  }
}

function nextLineEnd (text: string, last: boolean): number {
  const lf = text.indexOf('\n')
  const cr = text.indexOf('\r')
  if (cr === -1) return lf
  // A lone CR at the very end may be the first half of CRLF: wait for the next chunk, if any.
  if (cr === text.length - 1 && !last) return lf
  return lf === -1 ? cr : Math.min(lf, cr)
}
