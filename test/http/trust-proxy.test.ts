// MCPServer behind a reverse proxy (issue 19, item 9): with `transport.options.trustProxy` naming
// the balancer, the bounds counted per client without auth count each client by the address the
// balancer saw; without it every client is the balancer's address, and one client's sessions lock
// the others out. A real HAProxy (the README's configuration, `option forwardfor`) between raw
// HTTP clients on 127.0.0.2 and 127.0.0.3 and the server.
import t, { type Test } from 'tap'
import { MCPServer } from '../../src/index.js'
import { BOTH, raw } from '../helpers/streamable-raw.js'
import { haproxyTest, startHaproxy } from '../helpers/haproxy.js'

const INITIALIZE = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } }

/** An MCPServer allowing 2 sessions per client, behind HAProxy; `initialize` opens a session from `from`, and says the status. */
async function behindHaproxy (t: Test, trustProxy?: string | string[]) {
  const server = new MCPServer({
    name: 'proxied',
    version: '1.0.0',
    transport: { type: 'sse', options: { port: 0, host: '127.0.0.1', maxSessionsPerClient: 2, ...(trustProxy === undefined ? {} : { trustProxy }) } }
  })
  const { port } = await server.start()
  t.teardown(() => server.stop())
  const proxy = await startHaproxy(t, [port])
  return async (from: string, headers: Record<string, string> = {}): Promise<number> => {
    const reply = await raw(`${proxy.url}/mcp`, 'POST', { ...BOTH, ...headers }, INITIALIZE, { localAddress: from })
    await reply.text()
    return reply.status
  }
}

t.test('trustProxy names the balancer: each client counts by its own address, a forged X-Forwarded-For changes nothing', haproxyTest(t), async (t) => {
  const initialize = await behindHaproxy(t, '127.0.0.1')
  t.same([await initialize('127.0.0.2'), await initialize('127.0.0.2')], [200, 200])
  t.equal(await initialize('127.0.0.2'), 429, 'the third session of one client is refused')
  // HAProxy appends the address it saw; the server believes only what its trusted balancer added.
  t.equal(await initialize('127.0.0.2', { 'x-forwarded-for': '10.9.9.9' }), 429, 'a made-up address in front does not make a new client')
  t.same([await initialize('127.0.0.3'), await initialize('127.0.0.3')], [200, 200], 'another client has its own share')
})

t.test('without trustProxy every client behind the balancer is one client', haproxyTest(t), async (t) => {
  const initialize = await behindHaproxy(t)
  t.same([await initialize('127.0.0.2'), await initialize('127.0.0.2')], [200, 200])
  t.equal(await initialize('127.0.0.3'), 429, 'another client is locked out by the first one\'s sessions')
})

t.test('trustProxy is validated: true and what is not an address or range are refused at construction', async (t) => {
  const make = (trustProxy: unknown) => () => new MCPServer({ transport: { type: 'sse', options: { trustProxy } } } as never)
  t.throws(make(true), { message: /transport\.options\.trustProxy: true is refused: it believes any X-Forwarded-For a client sends/ })
  t.throws(make(['10.0.0.0/8', 'balancer.internal']), { message: /transport\.options\.trustProxy\[1\]: expected an IP address, a CIDR range/ })
  t.throws(make('10.0.0.1/33'), { message: /expected an IP address, a CIDR range/ })
  t.doesNotThrow(make('10.0.0.1, 10.0.1.0/24, loopback'))
  t.doesNotThrow(make(['fd00::/8', 'uniquelocal']))
})
