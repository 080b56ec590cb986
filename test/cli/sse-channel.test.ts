// The HTTP+SSE client channel against servers that misbehave: a refusal, a stream without its
// endpoint, messages that are not JSON, a message endpoint that refuses, a stream that ends.
import { once } from 'node:events'
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { ErrorCode } from '../../src/index.js'
import { openSseChannel } from '../../src/cli/sse-channel.js'
import { TransportError } from '../../src/testing/index.js'

const inbound = { notification: () => {}, request: async () => ({}) }

async function server (t: Test, onGet: (res: ServerResponse) => void, onPost: (res: ServerResponse, body: string) => void = (res) => { res.writeHead(202).end() }): Promise<URL> {
  const http = createServer((req, res) => {
    if (req.method === 'GET') return onGet(res)
    let body = ''
    req.setEncoding('utf8').on('data', (chunk: string) => { body += chunk }).on('end', () => { onPost(res, body) })
  })
  http.listen(0, '127.0.0.1')
  await once(http, 'listening')
  t.teardown(() => { http.closeAllConnections(); http.close() })
  return new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/sse`)
}

t.test('refusals and broken streams', async (t) => {
  const refused = await server(t, (res) => { res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' }).end('{"error":"invalid_token"}') })
  const error = await openSseChannel(refused, {}, inbound).catch((thrown: unknown) => thrown)
  t.type(error, TransportError)
  t.match(error, { status: 401, body: { error: 'invalid_token' }, headers: { 'www-authenticate': 'Bearer' } })
  const text = await server(t, (res) => { res.writeHead(404).end('no') })
  t.match(await openSseChannel(text, {}, inbound).catch((thrown: unknown) => thrown), { status: 404, body: 'no' })
  const endless = await server(t, (res) => { res.writeHead(200, { 'content-type': 'text/event-stream' }).end('event: other\ndata: x\n\n') })
  await t.rejects(openSseChannel(endless, {}, inbound), /the event stream ended before naming its message endpoint/)
  await t.rejects(openSseChannel(new URL('http://127.0.0.1:1/sse'), {}, inbound), { code: ErrorCode.ConnectionClosed, message: /Cannot reach/ })
})

t.test('messages: garbage skipped, a refused post ends the channel, the stream\'s end too', async (t) => {
  let stream: ServerResponse | undefined
  const url = await server(t, (res) => {
    stream = res
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    res.write('event: endpoint\ndata: /messages?session=1\n\n')
  }, (res, body) => {
    const message = JSON.parse(body)
    if (message.method === 'refused') return res.writeHead(403).end('forbidden')
    res.writeHead(202).end()
    stream?.write('data: not json\n\nevent: ping\ndata: {}\n\n')
    stream?.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { echoed: message.method } })}\n\n`)
  })
  const channel = await openSseChannel(url, { 'x-api-key': 'k' }, inbound)
  t.same(await channel.request({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), { jsonrpc: '2.0', id: 1, result: { echoed: 'tools/list' } })
  await t.rejects(channel.request({ jsonrpc: '2.0', id: 2, method: 'refused' }), { code: ErrorCode.ConnectionClosed, message: /The connection failed: HTTP 403: forbidden/ })
  await channel.close()

  const ending = await server(t, (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    res.end('event: endpoint\ndata: /messages\n\n')
  })
  const short = await openSseChannel(ending, {}, inbound)
  await new Promise((resolve) => setTimeout(resolve, 50))
  await t.rejects(short.request({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), { code: ErrorCode.ConnectionClosed, message: 'The server closed the event stream' })
  await short.close()
})
