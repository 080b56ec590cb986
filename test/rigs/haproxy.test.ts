import t, { type Test } from 'tap'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js'
import { ElicitRequestSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { textOf } from '../helpers/clients.js'
import { startProcessCluster } from '../helpers/cluster.js'
import { haproxyTest } from '../helpers/haproxy.js'
import { redisTest } from '../helpers/redis-server.js'
import { sleep, within } from '../helpers/wait.js'

// Issue 12, must-show 1 and 2: three instances as child processes (plain JS against dist/) on one
// real redis-server, behind a real HAProxy doing round-robin; the official SDK client talks to
// HAProxy only.

async function cluster (t: Test): Promise<string> {
  return (await startProcessCluster(t, 'scale-instance.mjs')).url
}

const capabilities = { elicitation: {} }

async function streamable (t: Test, url: string): Promise<{ client: Client, transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'haproxy-client', version: '1.0.0' }, { capabilities })
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`))
  await client.connect(transport)
  t.teardown(async () => { await client.close() })
  return { client, transport }
}

const options = { ...redisTest(t), ...(haproxyTest(t).skip !== false ? haproxyTest(t) : {}) }

t.test('behind HAProxy round-robin: one session\'s 300 POSTs spread evenly over 3 instances', options, async (t) => {
  const url = await cluster(t)
  const { client } = await streamable(t, url)
  const counts: Record<string, number> = {}
  for (let i = 0; i < 300; i++) {
    const where = textOf(await client.callTool({ name: 'where', arguments: {} }))
    counts[where] = (counts[where] ?? 0) + 1
  }
  t.same(Object.keys(counts).sort(), ['i0', 'i1', 'i2'], 'every instance executed calls of the session')
  for (const [id, count] of Object.entries(counts)) t.ok(count >= 85 && count <= 115, `${id} ran ${count} of 300 (33 % ± 5 %)`)
})

t.test('behind HAProxy: elicitation, progress, logs, broadcast to 30 clients, DELETE, legacy SSE', options, async (t) => {
  const url = await cluster(t)
  const { client, transport } = await streamable(t, url)
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'Ada' } }))
  await client.setLoggingLevel('info')
  for (let i = 0; i < 3; i++) t.match(textOf(await client.callTool({ name: 'ask_user', arguments: {} })), /^i\d heard {"name":"Ada"}$/, 'elicitation answered through the balancer')
  const progress: number[] = []
  const logs: unknown[] = []
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => { logs.push(n.params.data) })
  t.match(textOf(await client.callTool({ name: 'work', arguments: { n: 7 } }, undefined, { onprogress: (p) => { progress.push(p.progress) } })), /^i\d:7$/)
  t.same(progress, [1], 'progress')
  t.same(logs, [{ n: 7 }], 'the log, at the level set through another instance')

  const clients: Client[] = []
  const heard: unknown[][] = []
  for (let i = 0; i < 30; i++) {
    const { client: listener } = await streamable(t, url)
    const got: unknown[] = []
    heard.push(got)
    listener.setNotificationHandler(LoggingMessageNotificationSchema, (n) => { got.push(n.params.data) })
    clients.push(listener)
  }
  // Their GET streams open after initialize, through the balancer; give them a moment to claim stream 0.
  await sleep(300)
  const from = textOf(await client.callTool({ name: 'broadcast', arguments: { data: 'hello all' } }))
  await within(() => heard.every((got) => got.length > 0), { timeoutMs: 5000 })
  t.ok(heard.every((got) => got.length === 1 && got[0] === 'hello all'), `a broadcast from ${from} reached each of the 30 clients once`)

  await transport.terminateSession()
  await t.rejects(client.callTool({ name: 'where', arguments: {} }), 'the session DELETEd through the balancer is gone on every instance')

  const legacy = new Client({ name: 'haproxy-sse', version: '1.0.0' }, { capabilities })
  legacy.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'Grace' } }))
  await legacy.connect(new SSEClientTransport(new URL(`${url}/sse`)))
  t.teardown(async () => { await legacy.close() })
  const owners = new Set<string>()
  for (let i = 0; i < 6; i++) owners.add(textOf(await legacy.callTool({ name: 'where', arguments: {} })))
  t.equal(owners.size, 1, 'legacy SSE: every POST executed by the stream\'s owner')
  t.match(textOf(await legacy.callTool({ name: 'ask_user', arguments: {} })), /heard {"name":"Grace"}$/, 'legacy SSE elicitation, replies forwarded')
})
