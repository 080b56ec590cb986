// The telemetry option: on by default once an SDK is registered (even after the server was
// built), off with enabled: false, providers of the application's choosing, bad values refused.
import t, { type Test } from 'tap'
import { trace } from '@opentelemetry/api'
import { CreateMessageRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js'
import { MCPServer, Type } from '../../src/index.js'
import { resolvePluginOptions, resolveServerOptions } from '../../src/schemas/resolve.js'
import { connectStreamable } from '../helpers/clients.js'
import { installOtel } from '../fixtures/otel.js'
import { listeningCatalogApp } from '../helpers/serve.js'

async function callOnce (t: Test, options: Record<string, unknown>, onCall?: (recording: boolean) => void): Promise<void> {
  const { app, base } = await listeningCatalogApp(t, options)
  app.mcp.tool({ name: 'probe', description: 'Reports whether ctx.span records', inputSchema: Type.Object({}) }, async (_args, ctx) => {
    onCall?.(ctx.span.isRecording())
    return { content: [{ type: 'text', text: String(ctx.span.isRecording()) }] }
  })
  const { client } = await connectStreamable(`${base}/mcp`)
  t.teardown(async () => await client.close())
  await client.callTool({ name: 'probe', arguments: {} })
}

t.test('no SDK: no span (ctx.span does not record); an SDK registered later is used from then on', async (t) => {
  const seen: boolean[] = []
  const { app, base } = await listeningCatalogApp(t)
  app.mcp.tool({ name: 'probe', description: 'probe' }, async (_args, ctx) => {
    seen.push(ctx.span.isRecording())
    return { content: [] }
  })
  const { client } = await connectStreamable(`${base}/mcp`)
  t.teardown(async () => await client.close())
  await client.callTool({ name: 'probe', arguments: {} })
  const otel = installOtel()
  t.teardown(otel.shutdown)
  await client.callTool({ name: 'probe', arguments: {} })
  t.same(seen, [false, true])
  const { spans, metrics } = await otel.read()
  t.same(spans.map((span) => span.name), ['tools/call probe'], 'only the call made after registration')
  t.ok(metrics.some((metric) => metric.name === 'mcp.server.operation.duration'), 'metrics too: the meter is looked up again')
})

t.test('enabled: false records nothing, whatever the application registered', async (t) => {
  const otel = installOtel()
  t.teardown(otel.shutdown)
  const seen: boolean[] = []
  await callOnce(t, { telemetry: { enabled: false } }, (recording) => { seen.push(recording) })
  t.same(seen, [false])
  const { spans, metrics } = await otel.read()
  t.same(spans, [])
  t.notOk(metrics.some((metric) => metric.name.startsWith('mcp.') || metric.name.startsWith('fastify_mcp.')))
})

t.test('tracerProvider and meterProvider: used instead of the global ones, as given', async (t) => {
  const mine = installOtel(false)
  t.teardown(mine.shutdown)
  const options = { telemetry: { tracerProvider: mine.tracerProvider, meterProvider: mine.meterProvider } }
  const resolved = resolvePluginOptions(options)
  t.equal(resolved.telemetry.tracerProvider, mine.tracerProvider, 'the very same object, not a copy')
  t.equal(resolved.telemetry.meterProvider, mine.meterProvider)
  t.equal(resolved.telemetry.enabled, true)
  t.notOk(Object.isFrozen(mine.tracerProvider), 'the provider is not frozen')
  t.equal(trace.getTracerProvider().getTracer('x').startSpan('x').isRecording(), false, 'no global SDK')
  await callOnce(t, options)
  const { spans, metrics } = await mine.read()
  t.ok(spans.some((span) => span.name === 'tools/call probe'))
  t.ok(metrics.some((metric) => metric.name === 'mcp.server.operation.duration'))
})

t.test('bad telemetry options are refused with their paths', async (t) => {
  let error: any
  try {
    resolveServerOptions({ telemetry: { enabled: 'yes', tracerProvider: {}, meterProvider: 42, sampler: 1 } })
  } catch (caught) {
    error = caught
  }
  t.equal(error?.code, 'FST_MCP_INVALID_OPTIONS')
  t.same(error?.problems.map((problem: { path: string }) => problem.path), ['telemetry.enabled', 'telemetry.meterProvider', 'telemetry.sampler', 'telemetry.tracerProvider'], 'every bad path, one error')
  t.match(error?.message, /telemetry\.tracerProvider: expected an OpenTelemetry TracerProvider, an object with a getTracer\(\) method/)
  t.throws(() => new MCPServer({ telemetry: { meterProvider: null as never } }), { code: 'FST_MCP_INVALID_OPTIONS', message: /telemetry\.meterProvider/ })
  t.same(resolveServerOptions({ telemetry: { tracerProvider: undefined } }).telemetry, { enabled: true }, 'undefined is absent')
})

t.test('server-to-client requests that fail: the CLIENT span says how (error code, timeout)', async (t) => {
  const otel = installOtel()
  t.teardown(otel.shutdown)
  const { app, base } = await listeningCatalogApp(t)
  app.mcp.tool({ name: 'ask', description: 'Samples, quickly' }, async (_args, ctx) => {
    const timeoutMs = ctx.meta?.quick === true ? 50 : 10_000
    await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 }, { timeoutMs })
    return { content: [] }
  })
  const { client } = await connectStreamable(`${base}/mcp`, { capabilities: { sampling: {} } })
  t.teardown(async () => await client.close())
  let answer: 'refuse' | 'never' = 'refuse'
  client.setRequestHandler(CreateMessageRequestSchema, async () => {
    if (answer === 'refuse') throw new McpError(-32001, 'the user said no')
    return await new Promise(() => {})
  })
  await t.rejects(client.callTool({ name: 'ask', arguments: {} }), { code: -32001 })
  answer = 'never'
  await t.rejects(client.callTool({ name: 'ask', arguments: {}, _meta: { quick: true } }), { code: -32003 })
  const { spans } = await otel.read()
  const sampling = spans.filter((span) => span.name === 'sampling/createMessage')
  t.equal(sampling.length, 2)
  t.match(sampling[0], { kind: 2, attributes: { 'error.type': '-32001', 'rpc.response.status_code': '-32001' }, status: { code: 2, message: 'the user said no' } })
  t.match(sampling[1], { attributes: { 'error.type': 'timeout' }, status: { code: 2 } })
  t.equal(sampling[1]?.attributes['rpc.response.status_code'], undefined, 'no answer, no code')
  const calls = spans.filter((span) => span.name === 'tools/call ask')
  t.match(calls, [{ attributes: { 'error.type': '-32001' } }, { attributes: { 'error.type': '-32003' } }], 'the tool call fails with what the client request failed with')
})

t.test('a meter provider alone: durations without spans, server-to-client requests unchanged', async (t) => {
  const mine = installOtel(false)
  t.teardown(mine.shutdown)
  const { app, base } = await listeningCatalogApp(t, { telemetry: { meterProvider: mine.meterProvider } })
  app.mcp.tool({ name: 'ask', description: 'Samples' }, async (_args, ctx) => {
    const result = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 })
    return { content: [{ type: 'text', text: `${String(ctx.span.isRecording())} ${String(result.model)}` }] }
  })
  const { client } = await connectStreamable(`${base}/mcp`, { capabilities: { sampling: {} } })
  t.teardown(async () => await client.close())
  let meta: unknown
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    meta = request.params._meta
    return { role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'm' }
  })
  const answer = await client.callTool({ name: 'ask', arguments: {} })
  t.same(answer.content, [{ type: 'text', text: 'false m' }])
  t.equal(meta, undefined, 'no trace context is injected without a tracer')
  const { spans, metrics } = await mine.read()
  t.same(spans, [])
  const duration = metrics.find((metric) => metric.name === 'mcp.server.operation.duration')
  t.ok(duration?.points.some((point) => point.attributes['gen_ai.tool.name'] === 'ask'))
})
