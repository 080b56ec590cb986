// The telemetry option: on by default once an SDK is registered (even after the server was
// built), off with enabled: false, providers of the application's choosing, bad values refused.
import t, { type Test } from 'tap'
import { trace } from '@opentelemetry/api'
import { MCPServer, Type } from '../src/index.js'
import { resolvePluginOptions, resolveServerOptions } from '../src/schemas/resolve.js'
import { connectStreamable } from './helpers/clients.js'
import { listeningCatalogApp } from './fixtures/http-app.js'
import { installOtel } from './fixtures/otel.js'

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
