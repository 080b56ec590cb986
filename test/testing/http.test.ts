// What the client does on the HTTP wire of a Fastify app: resuming a stream the server closed
// (2025-11-25, Last-Event-ID), the headers that mirror a 2026-07-28 body (Mcp-Name in base64,
// Mcp-Param-*), and refusals before MCP, as TransportError.
import Fastify, { type FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import mcp, { ErrorCode, McpError, Type } from '../../src/index.js'
import { createTestClient, TransportError } from '../../src/testing/index.js'

async function app (t: Test, options: Record<string, unknown> = {}): Promise<FastifyInstance> {
  const created = Fastify()
  await created.register(mcp, { name: 'http', version: '1.0.0', instructions: 'Use with care.', ...options })
  t.teardown(async () => { await created.close() })
  return created
}

t.test('2025-11-25: a stream the server closed is resumed, the answer arrives', async (t) => {
  const target = await app(t)
  target.mcp.tool({ name: 'long', inputSchema: Type.Object({}) }, async (_args, ctx) => {
    ctx.progress(1, 2, 'half way')
    t.equal(ctx.closeStream(10), true, 'the server closes the stream')
    await new Promise((resolve) => setTimeout(resolve, 50))
    ctx.progress(2, 2, 'done')
    return { content: [{ type: 'text', text: 'after the reconnect' }] }
  })
  const client = await createTestClient(target, { protocolVersion: '2025-11-25' })
  t.teardown(async () => { await client.close() })
  t.same((await client.callTool('long')).content, [{ type: 'text', text: 'after the reconnect' }])
  t.same(client.progress.map((event) => event.message), ['half way', 'done'], 'what was sent while away is replayed')
  t.equal((await client.discover()).instructions, 'Use with care.')
})

t.test('2026-07-28: Mcp-Name in base64 when it is not plain ASCII; Mcp-Param-* for marked parameters', async (t) => {
  const target = await app(t)
  const seen: Array<Record<string, unknown>> = []
  target.addHook('onRequest', async (request) => { seen.push({ ...request.headers }) })
  target.mcp.resource({ uri: 'notes://{name}', name: 'note' }, async (uri, ctx) => ({ contents: [{ uri, text: `note ${ctx.params.name}` }] }))
  target.mcp.tool({
    name: 'forecast',
    inputSchema: Type.Object({ region: Type.String({ 'x-mcp-header': 'Region' }), days: Type.Integer({ 'x-mcp-header': 'Days' }), detail: Type.Optional(Type.Boolean({ 'x-mcp-header': 'Detail' })) })
  }, async ({ region, days }) => ({ content: [{ type: 'text', text: `${region} for ${days} days` }] }))
  const client = await createTestClient(target)
  t.teardown(async () => { await client.close() })
  t.same((await client.callTool('forecast', { region: 'Île-de-France', days: 3, detail: true })).content, [{ type: 'text', text: 'Île-de-France for 3 days' }],
    'the server checked the mirrored headers against the body')
  const call = seen.find((headers) => headers['mcp-method'] === 'tools/call')
  t.match(call, { 'mcp-name': 'forecast', 'mcp-param-region': `=?base64?${Buffer.from('Île-de-France').toString('base64')}?=`, 'mcp-param-days': '3', 'mcp-param-detail': 'true' })
  t.ok(seen.some((headers) => headers['mcp-method'] === 'tools/list'), 'the tool\'s schema was listed first, as a host would have')
  const read = await client.readResource('notes://café')
  t.same(read.contents, [{ uri: 'notes://café', text: 'note café' }])
  t.equal(seen.at(-1)?.['mcp-name'], `=?base64?${Buffer.from('notes://café').toString('base64')}?=`)
  await client.readResource('notes://plain')
  t.equal(seen.at(-1)?.['mcp-name'], 'notes://plain')
})

t.test('refusals before MCP are TransportError: the status, the headers, the body', async (t) => {
  const target = await app(t, { bodyLimit: 1024 })
  target.addHook('onRequest', async (request, reply) => {
    if (request.headers['x-maintenance'] !== undefined) await reply.code(503).header('retry-after', '30').type('text/plain').send('down for maintenance')
  })
  target.mcp.tool({ name: 'echo', inputSchema: Type.Object({ text: Type.String() }) }, async ({ text }) => ({ content: [{ type: 'text', text }] }))
  for (const protocolVersion of ['2026-07-28', '2025-11-25'] as const) {
    const client = await createTestClient(target, { protocolVersion })
    const tooLarge = await client.callTool('echo', { text: 'x'.repeat(2000) }).catch((error: unknown) => error)
    t.type(tooLarge, TransportError)
    t.match(tooLarge, { status: 413, code: ErrorCode.InvalidRequest, message: /^HTTP 413: / })
    await client.close()
  }
  const down = await createTestClient(target, { headers: { 'X-Maintenance': '1' } })
  const refused = await down.listTools().catch((error: unknown) => error)
  t.type(refused, McpError)
  t.match(refused, { status: 503, code: ErrorCode.TransportRefused, message: 'HTTP 503: down for maintenance', headers: { 'retry-after': '30' }, body: 'down for maintenance' })
  await down.close()
})
