// The testing client's parts on their own: the line channel (noise, a dead wire, what the server
// asks), the listen queue (reading, timing out, ending), the result plainer.
import { PassThrough } from 'node:stream'
import t from 'tap'
import { ErrorCode, McpError } from '../../src/index.js'
import { ListenQueue } from '../../src/testing/listen.js'
import { lineChannel } from '../../src/testing/multiplex.js'
import { plain } from '../../src/testing/plain.js'

t.test('the line channel', async (t) => {
  const fromServer = new PassThrough()
  const toServer = new PassThrough()
  const written: any[] = []
  toServer.setEncoding('utf8').on('data', (chunk: string) => { for (const line of chunk.split('\n').filter(Boolean)) written.push(JSON.parse(line)) })
  const noise: string[] = []
  const notifications: unknown[] = []
  let released = 0
  const channel = lineChannel(fromServer, toServer, {
    notification: (message) => { notifications.push(message) },
    request: async (message) => {
      if (message.method === 'fail') throw new Error('plain failure')
      if (message.method === 'refuse') throw new McpError(ErrorCode.InvalidParams, 'no', { why: 'because' })
      return { ok: true }
    }
  }, { release: async () => { released++ }, onNoise: (line) => { noise.push(line) } })
  const answer = channel.request({ jsonrpc: '2.0', id: 1, method: 'ping' })
  fromServer.write('hello from a console.log\n\n{"jsonrpc":"2.0","id":99,"result":{}}\n{"oops":1}\n')
  fromServer.write('{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}\n')
  fromServer.write('{"jsonrpc":"2.0","id":"s1","method":"ok"}\n{"jsonrpc":"2.0","id":"s2","method":"fail"}\n{"jsonrpc":"2.0","id":"s3","method":"refuse"}\n')
  fromServer.write('{"jsonrpc":"2.0","id":1,"res')
  fromServer.write('ult":{"pong":true}}\n')
  t.same(await answer, { jsonrpc: '2.0', id: 1, result: { pong: true } }, 'a response split across chunks; an unknown id and garbage skipped')
  t.same(noise, ['hello from a console.log'])
  t.same(notifications, [{ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } }])
  await new Promise((resolve) => setImmediate(resolve))
  t.same(written.slice(1), [
    { jsonrpc: '2.0', id: 's1', result: { ok: true } },
    { jsonrpc: '2.0', id: 's2', error: { code: ErrorCode.InternalError, message: 'plain failure' } },
    { jsonrpc: '2.0', id: 's3', error: { code: ErrorCode.InvalidParams, message: 'no', data: { why: 'because' } } }
  ], 'the server\'s requests answered, failures as errors')

  const waiting = channel.request({ jsonrpc: '2.0', id: 2, method: 'tools/list' })
  fromServer.end()
  await t.rejects(waiting, { code: ErrorCode.ConnectionClosed, message: 'The server closed the connection' })
  await t.rejects(channel.request({ jsonrpc: '2.0', id: 3, method: 'tools/list' }), { code: ErrorCode.ConnectionClosed })
  await channel.notify({ jsonrpc: '2.0', method: 'notifications/initialized' })
  await channel.close()
  await channel.close()
  t.equal(released, 1, 'released once')

  const ended = new PassThrough()
  ended.end()
  const broken = lineChannel(new PassThrough(), ended, { notification: () => {}, request: async () => ({}) }, { release: async () => {} })
  await t.rejects(broken.request({ jsonrpc: '2.0', id: 1, method: 'ping' }), { code: ErrorCode.ConnectionClosed, message: /The connection failed: the server's input is closed/ })
})

t.test('the listen queue', async (t) => {
  let stopped = 0
  const queue = new ListenQueue(async () => { stopped++ })
  queue.push({ method: 'a' })
  t.same(await queue.next(), { method: 'a' })
  await t.rejects(queue.next(20), /No notification within 20 ms/)
  const waiting = queue.next()
  queue.push({ method: 'b' })
  t.same(await waiting, { method: 'b' })
  queue.push({ method: 'c' })
  const read: string[] = []
  setTimeout(() => {
    queue.push({ method: 'd' })
    queue.end(new Error('over'))
    queue.push({ method: 'ignored' })
  }, 10)
  for await (const notification of queue) read.push(notification.method)
  t.same(read, ['c', 'd'], 'the iterator reads what is left, then ends with the queue')
  await t.rejects(queue.next(), /over/)
  t.same(queue.received.map((notification) => notification.method), ['a', 'b', 'c', 'd'])
  await queue.close()
  await queue.close()
  t.equal(stopped, 1)
})

t.test('plain results', async (t) => {
  t.same(plain({ resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': {}, mine: 1 }, ttlMs: 5, tools: [] }, true), { tools: [], _meta: { mine: 1 } })
  t.same(plain({ resultType: 'complete', ttlMs: 5, taskId: 'x' }), { ttlMs: 5, taskId: 'x' }, 'a task\'s ttlMs is its own')
  t.same(plain({ _meta: 'odd', content: [] }), { content: [] })
})
