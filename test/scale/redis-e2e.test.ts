// Two MCPServers sharing one real redis-server through `scaleOut`, and the official SDK client
// going to either one in turn (no stickiness): the Redis engine under the transports' routing.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import t from 'tap'
import { MCPServer, Type } from '../../src/index.js'
import { redisTest, startRedis } from '../helpers/redis-server.js'

t.test('MCPServer with scaleOut: one session served by two instances, ended by either', redisTest(t), async (t) => {
  const redis = await startRedis(t)
  const servers = ['a', 'b'].map((id) => {
    const server = new MCPServer({ name: 'scaled', version: '1.0.0', requestState: { secret: 'e2e-test-state-secret-0123456789abc' }, transport: { type: 'sse', options: { port: 0, scaleOut: { redis: redis.url, instanceId: id, heartbeatMs: 200 } } } })
    server.tool({ name: 'where', inputSchema: Type.Object({}) }, async () => ({ content: [{ type: 'text', text: id }] }))
    t.teardown(() => server.stop())
    return server
  })
  const urls: string[] = []
  for (const server of servers) urls.push((await server.start()).url)
  let next = 0
  const hits: string[] = []
  const rotating = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : String(input))
    const base = new URL(urls[next++ % urls.length] ?? '')
    url.host = base.host
    hits.push(base.port)
    return await fetch(url, init)
  }
  const transport = new StreamableHTTPClientTransport(new URL(`${urls[0] ?? ''}/mcp`), { fetch: rotating as typeof fetch })
  const client = new Client({ name: 'e2e', version: '1.0.0' })
  await client.connect(transport)
  const answers = new Set<string>()
  for (let i = 0; i < 6; i++) {
    const result = await client.callTool({ name: 'where', arguments: {} })
    answers.add((result.content as Array<{ text: string }>)[0]?.text ?? '')
  }
  t.same([...answers].sort(), ['a', 'b'], 'calls of one session executed on both instances')
  t.equal(new Set(hits).size, 2, 'requests went to both')
  const sessionId = transport.sessionId ?? ''
  await transport.terminateSession()
  for (const url of urls) {
    const response = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping' })
    })
    t.equal(response.status, 404, `${url}: the deleted session is unknown`)
    await response.body?.cancel()
  }
  await client.close()
})
