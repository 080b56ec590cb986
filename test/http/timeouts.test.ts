// Slow requests (issue 10, defect 6): MCPServer cuts a request whose headers or body trickle in
// (one byte a second kept a connection open forever under Fastify's requestTimeout 0), while
// event streams, whose requests are complete, stay open for as long as the client reads them.
import type { Socket } from 'node:net'
import t, { type Test } from 'tap'
import { MCPServer } from '../../src/index.js'
import { openSocket } from '../helpers/raw-socket.js'
import { sleep } from '../helpers/wait.js'

/** Resolves with what the server sent once it closes the connection; rejects after `capMs`. */
async function closedBy (socket: Socket, capMs: number): Promise<string> {
  let text = ''
  socket.setEncoding('utf8')
  socket.on('data', (chunk: string) => { text += chunk })
  socket.on('error', () => {})
  return await new Promise((resolve, reject) => {
    const cap = setTimeout(() => { socket.destroy(); reject(new Error(`still open after ${capMs} ms`)) }, capMs)
    socket.once('close', () => { clearTimeout(cap); resolve(text) })
  })
}

/** Writes one byte a second (or every `everyMs`) until the socket closes. */
function trickle (socket: Socket, text: string, everyMs = 1000): () => number {
  let sent = 0
  const timer = setInterval(() => {
    if (socket.destroyed || sent >= text.length) { clearInterval(timer); return }
    socket.write(text[sent++] as string)
  }, everyMs)
  socket.once('close', () => { clearInterval(timer) })
  return () => sent
}

async function start (t: Test, options: Record<string, unknown>): Promise<{ port: number }> {
  const server = new MCPServer({ transport: { type: 'sse', options: { port: 0, keepAliveIntervalMs: 1000, ...options } } })
  const { port } = await server.start() as { port: number }
  t.teardown(() => server.stop())
  return { port }
}

t.test('the defaults are set and safe', async (t) => {
  const server = new MCPServer({ transport: { type: 'sse' } })
  const http = server.options.transport.type === 'sse' ? server.options.transport.options : undefined
  t.equal(http?.requestReadTimeoutMs, 30_000)
  t.equal(http?.headersTimeoutMs, 10_000)
  t.throws(() => new MCPServer({ transport: { type: 'sse', options: { requestReadTimeoutMs: 1000, headersTimeoutMs: 2000 } } }),
    { code: 'FST_MCP_INVALID_OPTIONS', message: /headersTimeoutMs: .*requestReadTimeoutMs/ })
})

t.test('a body sent one byte a second is cut with 408', async (t) => {
  const { port } = await start(t, { requestReadTimeoutMs: 1500, headersTimeoutMs: 1000 })
  const socket = await openSocket(port)
  socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
    'Accept: application/json, text/event-stream\r\nContent-Length: 100000\r\n\r\n')
  const sent = trickle(socket, '{"jsonrpc":"2.0",'.padEnd(100000, ' '))
  const answer = await closedBy(socket, 20_000)
  t.match(answer, /^HTTP\/1\.1 408 /, 'Request Timeout')
  t.ok(sent() < 20, `cut after ${sent()} bytes`)
})

t.test('headers sent one byte at a time are cut', async (t) => {
  const { port } = await start(t, { requestReadTimeoutMs: 3000, headersTimeoutMs: 1000 })
  const socket = await openSocket(port)
  const sent = trickle(socket, `GET /sse HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Slow: ${'x'.repeat(200)}\r\n\r\n`, 250)
  const answer = await closedBy(socket, 20_000)
  t.match(answer, /^(HTTP\/1\.1 408 |)/, 'Request Timeout, or simply closed')
  t.ok(sent() < 100, `cut after ${sent()} bytes`)
})

t.test('open event streams outlive both timeouts', async (t) => {
  const { port } = await start(t, { requestReadTimeoutMs: 1000, headersTimeoutMs: 500 })
  const legacy = await openSocket(port)
  legacy.write(`GET /sse HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: text/event-stream\r\n\r\n`)
  let text = ''
  let closed = false
  legacy.setEncoding('utf8')
  legacy.on('data', (chunk: string) => { text += chunk })
  legacy.on('close', () => { closed = true })
  t.teardown(() => legacy.destroy())
  // Several request timeouts and Node's checks of them go by.
  await sleep(4000)
  t.notOk(closed, 'the stream is still open')
  t.match(text, /^HTTP\/1\.1 200 /)
  t.match(text, /event: endpoint/)
  const before = text.length
  await sleep(1500)
  t.ok(text.length > before, 'and still delivers (keep-alive comments)')
  t.notOk(closed)
})
