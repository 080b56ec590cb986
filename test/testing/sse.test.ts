// The event-stream parser the clients read answers with: events split anywhere across chunks,
// CRLF, CR or LF line ends, comments, multi-line data, ids and retry.
import t from 'tap'
import { readEvents, type SseEvent } from '../../src/testing/sse.js'

async function parse (chunks: Array<string | Uint8Array>): Promise<SseEvent[]> {
  const events: SseEvent[] = []
  for await (const event of readEvents((async function * () { yield * chunks })())) events.push(event)
  return events
}

t.test('fields, comments, multi-line data; events split at every byte', async (t) => {
  const text = ': a comment\r\nevent: endpoint\r\ndata: /messages?sessionId=1\r\n\r\nid: 7\nretry: 250\ndata: {"a":\ndata: 1}\n\ndata\n\nretry: soon\ndata:no space\rdata: second line\r\r'
  const expected: SseEvent[] = [
    { event: 'endpoint', data: '/messages?sessionId=1', id: undefined, retry: undefined },
    { event: 'message', data: '{"a":\n1}', id: '7', retry: 250 },
    { event: 'message', data: '', id: '7', retry: undefined },
    { event: 'message', data: 'no space\nsecond line', id: '7', retry: undefined }
  ]
  t.same(await parse([text]), expected, 'one chunk')
  t.same(await parse([...text]), expected, 'one character at a time (CRLF split between chunks)')
  t.same(await parse([new TextEncoder().encode(text)]), expected, 'bytes')
  const euro = new TextEncoder().encode('data: €\n\n')
  t.same(await parse([euro.subarray(0, 7), euro.subarray(7)]), [{ event: 'message', data: '€', id: undefined, retry: undefined }], 'a character split across chunks')
  t.same(await parse(['data: never ended']), [], 'an event without its blank line is not dispatched')
})
