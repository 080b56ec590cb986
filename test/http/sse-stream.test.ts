import t from 'tap'
import { EventEmitter } from 'node:events'
import { request as httpRequest, type ServerResponse } from 'node:http'
import type { FastifyInstance } from 'fastify'
import { SseStream } from '../../src/transports/http/sse-stream.js'
import { listeningCatalogApp } from '../helpers/serve.js'
import { endpointOf, openRawStream } from '../helpers/sse-raw.js'
import { sleep, until } from '../helpers/wait.js'

const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } }

async function post (app: FastifyInstance, url: string, message: unknown): Promise<number> {
  return (await app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: message as object })).statusCode
}

t.test('the stream: headers, the endpoint event first, then messages as `message` events', async (t) => {
  const { app, base } = await listeningCatalogApp(t)
  const stream = await openRawStream(`${base}/sse`)
  t.teardown(() => stream.destroy())
  const { headers, statusCode } = stream.response
  t.equal(statusCode, 200)
  t.equal(headers['content-type'], 'text/event-stream; charset=utf-8')
  t.equal(headers['cache-control'], 'no-cache, no-transform')
  t.equal(headers['x-accel-buffering'], 'no', 'nginx must not buffer it')
  t.equal(headers.connection, 'keep-alive')
  t.equal(headers['content-length'], undefined, 'an open-ended body')

  const first = await stream.next()
  t.match(first, /^event: endpoint\ndata: \/messages\?sessionId=[0-9a-f-]{36}$/, 'the endpoint event comes first')
  const messages = endpointOf(first)
  t.equal(await post(app, messages, initialize), 202)
  const answer = await stream.next()
  const [eventLine, dataLine] = answer.split('\n')
  t.equal(eventLine, 'event: message')
  const response = JSON.parse(dataLine!.slice('data: '.length))
  t.match(response, { jsonrpc: '2.0', id: 1, result: { protocolVersion: '2024-11-05', serverInfo: { name: 'catalog' } } }, 'the answer travels on the stream')

  t.equal(await post(app, messages, { jsonrpc: '2.0', method: 'notifications/initialized' }), 202, 'notifications are accepted')
  t.equal(await post(app, messages, { jsonrpc: '2.0', id: 'srv-1', result: {} }), 202, 'so are responses to server requests')
  t.equal(await post(app, messages, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 2 } } }), 202)
  const sum = JSON.parse((await stream.nextMatching((frame) => frame.includes('"id":2'))).split('data: ')[1]!)
  t.same(sum.result.content, [{ type: 'text', text: '3' }])
})

t.test('keep-alive comments flow on an otherwise silent stream', async (t) => {
  const { base } = await listeningCatalogApp(t, { keepAliveIntervalMs: 1000 })
  const stream = await openRawStream(`${base}/sse`)
  t.teardown(() => stream.destroy())
  await stream.next()
  const started = Date.now()
  t.equal(await stream.next(), ': keepalive', 'a comment line')
  t.ok(Date.now() - started < 2500, 'within about one interval')
})

t.test('a session idle longer than idleTimeoutMs is closed and its stream ended', async (t) => {
  const { app, base } = await listeningCatalogApp(t, { idleTimeoutMs: 300 })
  const stream = await openRawStream(`${base}/sse`)
  t.teardown(() => stream.destroy())
  const messages = endpointOf(await stream.next())
  t.equal(app.mcp.sessionCount, 1)
  const ended = new Promise<void>((resolve) => stream.response.once('end', resolve))
  // Activity keeps it alive past the timeout...
  for (let i = 0; i < 8; i++) {
    await sleep(60)
    t.equal(await post(app, messages, { jsonrpc: '2.0', method: 'notifications/initialized' }), 202)
  }
  t.equal(app.mcp.sessionCount, 1, 'still open after ~480 ms of activity')
  // ...silence does not.
  await ended
  t.pass('the server ended the stream')
  t.equal(app.mcp.sessionCount, 0, 'the session is gone')
  t.equal(await post(app, messages, { jsonrpc: '2.0', method: 'ping', id: 1 }), 404, 'and its id is unknown now')
})

t.test('a session with a request in flight is not idle', async (t) => {
  const { app, base } = await listeningCatalogApp(t, { idleTimeoutMs: 100 })
  const stream = await openRawStream(`${base}/sse`)
  t.teardown(() => stream.destroy())
  const messages = endpointOf(await stream.next())
  t.equal(await post(app, messages, initialize), 202)
  t.equal(await post(app, messages, { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'wait_for_abort', arguments: { tag: 'idle-inflight' } } }), 202)
  await sleep(400)
  t.equal(app.mcp.sessionCount, 1, 'a long call keeps its session')
  await post(app, messages, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } })
  await until(() => app.mcp.sessionCount === 0, { timeoutMs: 3000, what: 'the idle sweep after the call ended' })
  t.pass('closed once the call was over')
})

t.test('a client gone before its stream opens leaves no session behind', async (t) => {
  let reached!: () => void
  const handlerReached = new Promise<void>((resolve) => { reached = resolve })
  const { app, base } = await listeningCatalogApp(t, {}, {
    before: (app) => {
    // An app-wide hook slow enough for the client to give up first.
      app.addHook('onRequest', async (request) => {
        if (request.url !== '/sse') return
        await sleep(150)
        setImmediate(reached)
      })
    }
  })
  const request = httpRequest(`${base}/sse`)
  request.on('error', () => {})
  request.end()
  setTimeout(() => request.destroy(), 20)
  await handlerReached
  await sleep(50)
  t.equal(app.mcp.sessionCount, 0, 'no session was opened for a closed socket')
})

t.test('the writer frames multi-line data and event ids (for transports that resume)', async (t) => {
  const written: string[] = []
  const res = Object.assign(new EventEmitter(), {
    destroyed: false,
    writableEnded: false,
    writableLength: 0,
    write (chunk: string) { written.push(chunk); return true },
    destroy () { this.destroyed = true; destroys++ }
  })
  let destroys = 0
  let overflows = 0
  const stream = new SseStream(res as unknown as ServerResponse, { maxQueuedBytes: 1024, onOverflow: () => { overflows++ } })
  stream.event('note', 'line one\nline two\r\nline three', '7')
  stream.message('{"jsonrpc":"2.0","method":"x"}', '8')
  t.same(written, [
    'event: note\nid: 7\ndata: line one\ndata: line two\ndata: line three\n\n',
    'event: message\nid: 8\ndata: {"jsonrpc":"2.0","method":"x"}\n\n'
  ])
  res.writableLength = 2048
  t.equal(stream.comment('keepalive'), false, 'over the limit: nothing written')
  t.equal(overflows, 1, 'the owner is told once')
  stream.destroy()
  t.equal(destroys, 1, 'destroying twice destroys once')
  t.equal(stream.message('{}'), false, 'a closed stream takes nothing')
})
