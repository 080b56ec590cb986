import t from 'tap'
import { PassThrough } from 'node:stream'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { ProtocolServer } from '../../src/protocol/protocol-server.js'
import { StdioRunner } from '../../src/transports/stdio/runner.js'
import { registerCatalog } from '../fixtures/catalog.js'
import { fixture } from '../helpers/clients.js'
import { readJsonLines } from '../helpers/json-lines.js'
import { until } from '../helpers/wait.js'

const silent = { error: () => {} }

/** A runner on in-memory pipes, with a reader of every line it writes. */
function harness (maxMessageBytes = 1024) {
  const core = new ProtocolServer({ name: 'catalog', version: '1.0.0', pageSize: 100, requestTimeoutMs: 1000, logger: silent })
  registerCatalog(core)
  const input = new PassThrough()
  const output = new PassThrough()
  const runner = new StdioRunner(core, { input, output, maxMessageBytes })
  runner.start()
  const { next, queued: lines } = readJsonLines(output)
  const init = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } }
  return { core, input, output, runner, next, lines, init }
}

t.test('a malformed line gets -32700 and the runner keeps going', async (t) => {
  const h = harness()
  h.input.write('{not json\n')
  t.same(await h.next(), { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the message is not valid JSON' } })
  h.input.write(JSON.stringify(h.init) + '\n')
  t.equal((await h.next()).result.protocolVersion, '2025-11-25')
  await h.runner.stop()
})

t.test('messages split across chunks and several per chunk', async (t) => {
  const h = harness()
  const text = JSON.stringify(h.init) + '\n' + JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }) + '\n' + JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 2 } } }) + '\r\n'
  // Byte by byte through a multi-byte character boundary would break naive string splitting.
  for (let i = 0; i < text.length; i += 7) h.input.write(Buffer.from(text.slice(i, i + 7)))
  t.equal((await h.next()).id, 0)
  t.same(await h.next(), { jsonrpc: '2.0', id: 1, result: {} })
  t.same(await h.next(), { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: '3' }] } })
  await h.runner.stop()
})

t.test('a multi-byte UTF-8 character split across chunks survives', async (t) => {
  const h = harness()
  h.input.write(JSON.stringify(h.init) + '\n')
  await h.next()
  const line = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 'é', method: 'prompts/get', params: { name: 'greet', arguments: { who: 'Zoë 😀' } } }) + '\n')
  const cut = line.indexOf(Buffer.from('😀')) + 2
  h.input.write(line.subarray(0, cut))
  h.input.write(line.subarray(cut))
  const reply = await h.next()
  t.equal(reply.id, 'é')
  t.equal(reply.result.messages[0].content.text, 'Hello Zoë 😀')
  await h.runner.stop()
})

t.test('wrong shapes are answered with -32600 and the right id', async (t) => {
  const h = harness()
  const cases: Array<[unknown, unknown, RegExp]> = [
    [[1, 2], null, /batches are not supported/],
    ['"just a string"', null, /must be an object/],
    [{ jsonrpc: '1.0', id: 3, method: 'ping' }, 3, /jsonrpc must be "2.0"/],
    [{ jsonrpc: '2.0', id: 4, method: 7 }, 4, /method must be a non-empty string/],
    [{ jsonrpc: '2.0', id: 5, method: 'ping', params: [1] }, 5, /params must be an object/],
    [{ jsonrpc: '2.0', id: { x: 1 }, method: 'ping' }, null, /id must be a string or a number/],
    [{ jsonrpc: '2.0', id: 6 }, 6, /not a request, notification or response/]
  ]
  for (const [message, id, reason] of cases) {
    h.input.write((typeof message === 'string' ? message : JSON.stringify(message)) + '\n')
    const reply = await h.next()
    t.equal(reply.id, id, `id of ${JSON.stringify(message)}`)
    t.equal(reply.error.code, -32600)
    t.match(reply.error.message, reason)
  }
  await h.runner.stop()
})

t.test('requests before initialize are refused; ping is allowed', async (t) => {
  const h = harness()
  h.input.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) + '\n')
  t.same((await h.next()).error, { code: -32600, message: 'The session is not initialized: send initialize first' })
  h.input.write(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }) + '\n')
  t.same(await h.next(), { jsonrpc: '2.0', id: 2, result: {} })
  h.input.write(JSON.stringify(h.init) + '\n')
  await h.next()
  h.input.write(JSON.stringify(h.init) + '\n')
  t.match((await h.next()).error, { code: -32600, message: /already initialized/ }, 'a second initialize is refused')
  h.input.write(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'nope/nope' }) + '\n')
  t.same((await h.next()).error, { code: -32601, message: 'Method not found: nope/nope' })
  await h.runner.stop()
})

t.test('a line over the limit is refused without buffering it, then serving goes on', async (t) => {
  const h = harness(1024)
  h.input.write(JSON.stringify(h.init) + '\n')
  await h.next()
  // 1 MiB streamed in 8 KiB chunks without a newline: refused at the first chunk past the limit.
  const chunk = Buffer.alloc(8192, 'a')
  h.input.write('{"jsonrpc":"2.0","id":9,"method":"ping","params":{"pad":"')
  for (let i = 0; i < 128; i++) h.input.write(chunk)
  const refusal = await h.next()
  t.same(refusal, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid request: message larger than 1024 bytes', data: { limit: 'maxMessageBytes', max: 1024 } } })
  t.equal(h.lines.length, 0, 'refused once, not once per chunk')
  h.input.write('"}}\n' + JSON.stringify({ jsonrpc: '2.0', id: 10, method: 'ping' }) + '\n')
  t.same(await h.next(), { jsonrpc: '2.0', id: 10, result: {} }, 'the rest of the long line was dropped, the next line served')
  // A complete oversize line inside one chunk is refused too.
  h.input.write(JSON.stringify({ jsonrpc: '2.0', id: 11, method: 'ping', params: { pad: 'b'.repeat(2000) } }) + '\n')
  t.match(await h.next(), { id: null, error: { code: -32600 } })
  await h.runner.stop()
})

t.test('stdin end waits for answers in flight, then closes', async (t) => {
  const h = harness()
  h.input.write(JSON.stringify(h.init) + '\n')
  await h.next()
  h.input.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 1 } } }) + '\n')
  t.same((await h.next()).result, { content: [{ type: 'text', text: '2' }] })
  await h.runner.closed
  t.equal(h.core.sessionCount, 0, 'the session is gone')
  await h.runner.stop()
  t.pass('stop() after close is a no-op')
})

t.test('a broken stdout (EPIPE) stops the runner instead of crashing', async (t) => {
  const h = harness()
  h.input.write(JSON.stringify(h.init) + '\n')
  await h.next()
  const epipe = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' })
  h.output.destroy(epipe)
  await h.runner.closed
  t.equal(h.core.sessionCount, 0)
  h.input.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }) + '\n')
  t.pass('input after the pipe broke is ignored')
})

t.test('a real child: stdout carries only protocol lines, EPIPE does not crash it', async (t) => {
  const child = spawn(process.execPath, [...process.execArgv, fixture('stdio-server.ts')], { stdio: ['pipe', 'pipe', 'pipe'] })
  const init = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } }
  child.stdin.write(JSON.stringify(init) + '\n' + 'garbage\n')
  let out = ''
  child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString() })
  await until(() => out.split('\n').length >= 3, { timeoutMs: 60_000, what: 'two lines on stdout' })
  const lines = out.trim().split('\n').map((line) => JSON.parse(line))
  t.equal(lines.find((line) => line.id === 0)?.result.protocolVersion, '2024-11-05', 'older protocol version negotiated')
  t.equal(lines.find((line) => line.id === null)?.error.code, -32700, 'the garbage line is answered')
  // Close our end of stdout, then ask for more output: the server must not die on EPIPE.
  child.stdout.destroy()
  child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }) + '\n')
  child.stdin.end()
  const [code, signal] = await once(child, 'exit') as [number | null, string | null]
  t.equal(signal, null, 'not killed')
  t.equal(code, 0, 'exits with status 0')
})
