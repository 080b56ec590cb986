// Bytes of requests being handled are bounded per client and overall (maxInflightBytesPerClient,
// maxInflightBytes): with only a count per session, one client could hold maxInflightRequests x
// bodyLimit (4 GB) per session in a slow tool's arguments. Raw HTTP from three loopback addresses
// (three hosts without auth), 2025-11-25 sessions and 2026-07-28 requests.
import t from 'tap'
import { catalogApp } from '../helpers/serve.js'
import { BOTH, openSession, openSessionWith, raw } from '../helpers/streamable-raw.js'
import { headersFor, modern } from '../helpers/modern.js'
import { until } from '../helpers/wait.js'

const KB = 1024
const pad = (bytes: number): string => 'a'.repeat(bytes)

t.test('a client holds maxInflightBytesPerClient in flight, all clients maxInflightBytes; the next request is refused before it runs', async (t) => {
  let release!: () => void
  const gate = new Promise<void>((resolve) => { release = resolve })
  let entered = 0
  const app = await catalogApp(t, { bodyLimit: 1024 * KB, maxInflightBytesPerClient: 2048 * KB, maxInflightBytes: 3072 * KB })
  app.mcp.tool({ name: 'hold' }, async () => {
    entered++
    await gate
    return { content: [{ type: 'text', text: 'released' }] }
  })
  t.teardown(() => { release() })
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const url = `${base}/mcp`
  const call = (session: string, id: number, bytes: number, from: string): ReturnType<typeof raw> =>
    raw(url, 'POST', { ...BOTH, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
      { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'hold', arguments: { pad: pad(bytes) } } }, { localAddress: from })

  const first = await openSession(url)
  const held = [call(first, 1, 900 * KB, '127.0.0.1'), call(first, 2, 900 * KB, '127.0.0.1')]
  await until(() => entered === 2, { what: 'two slow calls in flight' })
  const over = await call(first, 3, 900 * KB, '127.0.0.1')
  t.match(JSON.parse(await over.text()), {
    id: 3,
    error: { code: -32600, message: /Too many bytes in flight: the requests of one client being handled may hold 2097152 bytes \(maxInflightBytesPerClient\)/, data: { limit: 'maxInflightBytesPerClient', max: 2048 * KB } }
  })
  const small = call(first, 4, 10, '127.0.0.1')
  await until(() => entered === 3, { what: 'a small call still fits' })
  t.equal(entered, 3, 'the refused call never ran')

  // Another host is another client (a session counts against the client that opened it), until
  // every client together is at maxInflightBytes.
  const from = async (address: string): Promise<string> => await openSessionWith(url, {}, '2025-11-25', {}, { localAddress: address })
  const second = await from('127.0.0.2')
  held.push(call(second, 1, 900 * KB, '127.0.0.2'), small)
  await until(() => entered === 4, { what: 'another client\'s call' })
  const third = await from('127.0.0.3')
  const overall = await call(third, 1, 900 * KB, '127.0.0.3')
  t.match(JSON.parse(await overall.text()), { error: { code: -32600, data: { limit: 'maxInflightBytes', max: 3072 * KB } } })

  // A 2026-07-28 request past the client's share: 429, as for maxInflightRequests.
  const body = modern(9, 'tools/call', { name: 'hold', arguments: { pad: pad(900 * KB) } })
  const modernOver = await raw(url, 'POST', headersFor(body), body, { localAddress: '127.0.0.1' })
  t.equal(modernOver.status, 429)
  t.match(JSON.parse(await modernOver.text()), { id: 9, error: { code: -32600, data: { limit: 'maxInflightBytesPerClient' } } })

  release()
  const answers = await Promise.all(held.map(async (reply) => JSON.parse(await (await reply).text())))
  t.same(answers.map((answer) => answer.result?.content[0].text), ['released', 'released', 'released', 'released'])
  const after = await call(first, 5, 900 * KB, '127.0.0.1')
  t.equal(JSON.parse(await after.text()).result?.content[0].text, 'released', 'the bytes were given back with the answers')
})

t.test('options: a client\'s share below one message is refused, as is an overall bound below it', async (t) => {
  const { resolvePluginOptions, resolveServerOptions } = await import('../../src/schemas/resolve.js')
  t.throws(() => resolvePluginOptions({ maxInflightBytesPerClient: 1024 * KB }), { message: /maxInflightBytesPerClient: .*smaller than bodyLimit \(4194304\)/ })
  t.throws(() => resolveServerOptions({ maxInflightBytesPerClient: 1024 * KB }), { message: /maxInflightBytesPerClient: .*smaller than maxMessageBytes/ })
  t.throws(() => resolveServerOptions({ maxInflightBytes: 8192 * KB }), { message: /maxInflightBytes: .*smaller than maxInflightBytesPerClient/ })
  t.equal(resolvePluginOptions({ bodyLimit: 1024 * KB, maxInflightBytesPerClient: 1024 * KB }).maxInflightBytesPerClient, 1024 * KB)
})
