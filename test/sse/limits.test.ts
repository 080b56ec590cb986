import t from 'tap'
import { get as httpGet, type IncomingMessage } from 'node:http'
import { connect, type Socket } from 'node:net'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import Fastify from 'fastify'
import mcp from '../../src/index.js'
import { connectSse } from '../helpers/clients.js'
import { registerCatalog } from '../fixtures/catalog.js'
import { listeningCatalogApp } from '../helpers/serve.js'
import { endpointOf } from '../helpers/sse-raw.js'
import { until } from '../helpers/wait.js'

const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } }

/** A raw TCP client on /sse that reads the endpoint event, then stops reading altogether. */
async function stalledStream (base: string): Promise<{ socket: Socket, messages: string }> {
  const { hostname, port } = new URL(base)
  const socket = connect(Number(port), hostname)
  socket.on('error', () => {})
  socket.write(`GET /sse HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAccept: text/event-stream\r\n\r\n`)
  let received = ''
  const messages = await new Promise<string>((resolve) => {
    socket.on('data', function onData (chunk: Buffer) {
      received += chunk.toString()
      const match = /event: endpoint\ndata: (\S+)\n\n/.exec(received)
      if (match?.[1] === undefined) return
      socket.off('data', onData)
      resolve(match[1])
    })
  })
  socket.pause()
  return { socket, messages }
}

t.test('a client that stops reading is cut off past maxQueuedBytes; the server keeps serving', async (t) => {
  const { app, base } = await listeningCatalogApp(t, { maxQueuedBytes: 64 * 1024 })
  const { client } = await connectSse(`${base}/sse`)
  t.teardown(() => client.close())
  const stalled = await stalledStream(base)
  t.teardown(() => stalled.socket.destroy())
  await app.inject({ method: 'POST', url: stalled.messages, headers: { 'content-type': 'application/json' }, payload: initialize })
  t.equal(app.mcp.sessionCount, 2)

  // 64 KiB notifications: the kernel's buffers take a few MiB, then Node's start to fill.
  const big = 'x'.repeat(64 * 1024)
  let sent = 0
  while (app.mcp.sessionCount === 2 && sent < 2000) {
    app.mcp.broadcast({ method: 'notifications/message', params: { level: 'info', data: big } })
    sent++
    await new Promise((resolve) => setImmediate(resolve))
  }
  t.equal(app.mcp.sessionCount, 1, `the stalled session was cut off (after ${sent} broadcasts)`)
  const gone = await app.inject({ method: 'POST', url: stalled.messages, headers: { 'content-type': 'application/json' }, payload: { jsonrpc: '2.0', id: 2, method: 'ping' } })
  t.equal(gone.statusCode, 404, 'its session has ended')
  // Reading again, the client drains what the kernel held, then finds the connection closed.
  const closed = new Promise<void>((resolve) => stalled.socket.once('close', () => resolve()))
  stalled.socket.resume()
  await closed
  t.pass('the server dropped the connection')
  t.same(await client.ping(), {}, 'the reading client is still served')
})

t.test('1,000 sessions opened and dropped leave nothing behind', async (t) => {
  const { app, base } = await listeningCatalogApp(t)
  setFlagsFromString('--expose-gc')
  const gc = runInNewContext('gc') as () => void
  const openAndDrop = async (): Promise<void> => await new Promise((resolve, reject) => {
    const request = httpGet(`${base}/sse`, { agent: false }, (response: IncomingMessage) => {
      let text = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => {
        text += chunk
        if (!text.includes('\n\n')) return
        endpointOf(text.slice(0, text.indexOf('\n\n')))
        request.destroy()
        resolve()
      })
    })
    request.on('error', (error: NodeJS.ErrnoException) => { if (error.code !== 'ECONNRESET') reject(error) })
  })
  const round = async (count: number): Promise<void> => {
    for (let done = 0; done < count; done += 50) await Promise.all(Array.from({ length: 50 }, openAndDrop))
    await until(() => app.mcp.sessionCount === 0, { timeoutMs: 10_000, what: 'every session to close' })
  }
  const heapAfterGc = (): number => {
    for (let i = 0; i < 3; i++) gc()
    return process.memoryUsage().heapUsed
  }

  await round(200)
  const before = heapAfterGc()
  await round(1000)
  t.equal(app.mcp.sessionCount, 0, 'sessionCount is back to 0')
  const grown = heapAfterGc() - before
  t.ok(grown < 8 * 1024 * 1024, `heap grew by ${Math.round(grown / 1024)} KiB over 1,000 sessions (bound 8 MiB)`)
})

t.test('fastify.close() returns promptly with open streams, even a stalled one', async (t) => {
  // Default Fastify options: no forceCloseConnections. The plugin ends its own streams.
  const app = Fastify()
  await app.register(mcp, { name: 'catalog', version: '1.0.0', maxQueuedBytes: 64 * 1024 * 1024 })
  registerCatalog(app.mcp)
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const readers = await Promise.all([0, 1, 2].map(async () => await new Promise<IncomingMessage>((resolve) => {
    httpGet(`${base}/sse`, resolve).on('error', () => {})
  })))
  const ended = readers.map(async (response) => await new Promise<void>((resolve) => {
    response.resume()
    response.on('end', resolve)
    response.on('error', () => resolve())
  }))
  const stalled = await stalledStream(base)
  t.teardown(() => stalled.socket.destroy())
  await app.inject({ method: 'POST', url: stalled.messages, headers: { 'content-type': 'application/json' }, payload: initialize })
  // ~13 MiB the stalled client will never read: more than the kernel buffers hold, under the cut-off.
  for (let i = 0; i < 200; i++) {
    app.mcp.broadcast({ method: 'notifications/message', params: { level: 'info', data: 'y'.repeat(64 * 1024) } })
    await new Promise((resolve) => setImmediate(resolve))
  }
  t.equal(app.mcp.sessionCount, 4)
  const stalledClosed = new Promise<void>((resolve) => stalled.socket.once('close', () => resolve()))

  const started = Date.now()
  await app.close()
  const took = Date.now() - started
  t.ok(took < 1500, `closed in ${took} ms`)
  await Promise.all(ended)
  t.pass('every reading client saw its stream end')
  stalled.socket.resume()
  await stalledClosed
  t.pass('the stalled connection was dropped')
  t.equal(app.mcp.sessionCount, 0)
})
