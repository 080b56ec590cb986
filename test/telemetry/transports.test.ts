// OpenTelemetry spans and metrics by the MCP semantic conventions, recorded by the real SDK, for
// the same calls made by the official SDK client over stdio, legacy SSE and Streamable HTTP.
import t, { type Test } from 'tap'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { connectSse, connectStdio, connectStreamable } from '../helpers/clients.js'
import { headersFor, modern } from '../helpers/modern.js'
import { installOtel, registerTelemetryTools, type Recorded, type RecordedSpan } from '../fixtures/otel.js'
import { listeningCatalogApp } from '../helpers/serve.js'
import { within } from '../helpers/wait.js'

const SERVER = 1
const CLIENT = 2
const ERROR = 2
const UNSET = 0
const BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300]
// The client's own trace: its tools/call span, sent in _meta as the conventions say.
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736'
const CLIENT_SPAN_ID = '00f067aa0ba902b7'

interface Transport {
  network: Record<string, unknown>
  /** `client.*`: on SERVER spans only (on a metric, one series per client). */
  peer: Record<string, unknown>
  /** The session id the client was given; undefined on stdio (MCP has none there). */
  sessionId: string | undefined
}

/** Every call of the scenario; the server's answers are checked here, the telemetry after. */
async function callEverything (t: Test, client: Client): Promise<{ sampled: Record<string, unknown> | undefined }> {
  let sampled: Record<string, unknown> | undefined
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    sampled = request.params._meta as Record<string, unknown> | undefined
    return { role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'test-model' }
  })
  const forecast = await client.callTool({ name: 'forecast', arguments: { city: 'Paris' }, _meta: { traceparent: `00-${TRACE_ID}-${CLIENT_SPAN_ID}-01`, tracestate: 'rojo=00f067aa0ba902b7' } })
  t.same(forecast.content, [{ type: 'text', text: 'Sunny in Paris' }])
  t.equal((await client.callTool({ name: 'fails', arguments: {} })).isError, true)
  t.equal((await client.callTool({ name: 'throws', arguments: {} })).isError, true)
  await t.rejects(client.readResource({ uri: 'docs://broken' }), { code: -32603 })
  await t.rejects(client.callTool({ name: 'nope', arguments: {} }), { code: -32602 })
  // Cancelled once the server is at work on it (its progress says so): no race with the request.
  const controller = new AbortController()
  const waiting = client.callTool({ name: 'waits', arguments: {} }, undefined, {
    signal: controller.signal,
    onprogress: () => { controller.abort('changed my mind') }
  })
  await t.rejects(waiting)
  const asked = await client.callTool({ name: 'ask_model', arguments: { question: 'why?' } })
  t.same(asked.content, [{ type: 'text', text: 'test-model' }])
  return { sampled }
}

const byName = (spans: RecordedSpan[], name: string): RecordedSpan[] => spans.filter((span) => span.name === name)
function one (t: Test, spans: RecordedSpan[], name: string): RecordedSpan {
  const found = byName(spans, name)
  t.equal(found.length, 1, `one span named ${name}`)
  return found[0] as RecordedSpan
}

/** Reads until `ready` holds: the last spans (a cancelled call) end just after the client gave up. */
/** What is recorded once `ready` holds, or after 2 s, whatever it is then (the checks say what is missing). */
async function settle (read: () => Promise<Recorded>, ready: (recorded: Recorded) => boolean): Promise<Recorded> {
  let recorded!: Recorded
  await within(async () => ready(recorded = await read()), { timeoutMs: 2000, everyMs: 20 })
  return recorded
}

function checkTelemetry (t: Test, recorded: Recorded, transport: Transport, sampled: Record<string, unknown> | undefined): void {
  const { spans } = recorded
  const session = transport.sessionId === undefined ? {} : { 'mcp.session.id': transport.sessionId }
  const absentSession = transport.sessionId === undefined ? { 'mcp.session.id': undefined } : {}

  const initialize = one(t, spans, 'initialize')
  t.equal(initialize.kind, SERVER)
  t.match(initialize.attributes, { 'mcp.method.name': 'initialize', 'jsonrpc.request.id': String, 'mcp.protocol.version': /^\d{4}-\d{2}-\d{2}$/, ...transport.network })
  t.ok(byName(spans, 'notifications/initialized').length === 1, 'a notification has its SERVER span too')

  // The client's traceparent in _meta is the parent; the handler's attribute and child span hang off it.
  const forecast = one(t, spans, 'tools/call forecast')
  t.equal(forecast.kind, SERVER)
  t.equal(forecast.traceId, TRACE_ID, 'the client trace continues on the server')
  t.equal(forecast.parentSpanId, CLIENT_SPAN_ID, 'the client span is the parent')
  t.match(forecast.attributes, {
    'mcp.method.name': 'tools/call',
    'gen_ai.tool.name': 'forecast',
    'gen_ai.operation.name': 'execute_tool',
    'jsonrpc.request.id': String,
    'mcp.protocol.version': String,
    'app.city': 'Paris',
    ...session,
    ...absentSession,
    ...transport.network,
    ...transport.peer
  })
  t.equal(forecast.attributes['error.type'], undefined)
  t.equal(forecast.status.code, UNSET)
  const child = one(t, spans, 'fetch forecast')
  t.equal(child.parentSpanId, forecast.spanId, 'the handler span is a child of the server span')
  t.equal(child.traceId, TRACE_ID)

  const fails = one(t, spans, 'tools/call fails')
  t.match(fails, { attributes: { 'error.type': 'tool_error', 'gen_ai.tool.name': 'fails' }, status: { code: ERROR } })
  t.equal(fails.attributes['rpc.response.status_code'], undefined, 'a tool error is a result, not a JSON-RPC error')
  t.match(one(t, spans, 'tools/call throws'), { attributes: { 'error.type': 'tool_error' }, status: { code: ERROR } })

  const broken = one(t, spans, 'resources/read')
  t.match(broken, {
    attributes: { 'mcp.resource.uri': 'docs://broken', 'error.type': '-32603', 'rpc.response.status_code': '-32603' },
    status: { code: ERROR, message: 'Internal error' }
  })

  // An unknown tool is the caller's mistake: the code alone, no error, and its name stays off the span name.
  const unknown = one(t, spans, 'tools/call')
  t.match(unknown.attributes, { 'rpc.response.status_code': '-32602' })
  t.equal(unknown.attributes['error.type'], undefined)
  t.equal(unknown.attributes['gen_ai.tool.name'], undefined)
  t.equal(unknown.status.code, UNSET)

  const waits = one(t, spans, 'tools/call waits')
  t.match(waits, { attributes: { 'error.type': 'cancelled' }, status: { code: ERROR } })
  t.ok(byName(spans, 'notifications/cancelled').length >= 1, 'the cancellation has its own SERVER span')

  const asked = one(t, spans, 'tools/call ask_model')
  const sampling = one(t, spans, 'sampling/createMessage')
  t.equal(sampling.kind, CLIENT)
  t.equal(sampling.parentSpanId, asked.spanId, 'the server-to-client request is a child of the tool call')
  t.match(sampling.attributes, { 'mcp.method.name': 'sampling/createMessage', 'jsonrpc.request.id': /^srv-\d+$/, ...session, ...transport.network })
  t.equal(sampled?.traceparent, `00-${sampling.traceId}-${sampling.spanId}-01`, 'the client got the CLIENT span as its parent in _meta')

  // Metrics: the conventions' histogram, low-cardinality attributes only.
  const duration = recorded.metrics.find((metric) => metric.name === 'mcp.server.operation.duration')
  t.ok(duration, 'mcp.server.operation.duration is recorded')
  if (duration === undefined) return
  t.equal(duration.unit, 's')
  const point = (match: Record<string, unknown>): { attributes: Record<string, unknown>, value: any } | undefined =>
    duration.points.find((p) => Object.entries(match).every(([key, value]) => p.attributes[key] === value))
  const weatherPoint = point({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'forecast' })
  t.match(weatherPoint, { attributes: { 'gen_ai.operation.name': 'execute_tool', 'mcp.protocol.version': String, ...transport.network }, value: { count: 1, buckets: { boundaries: BUCKETS } } })
  t.ok(weatherPoint !== undefined && weatherPoint.value.sum > 0, 'the duration is in seconds and above zero')
  t.match(point({ 'gen_ai.tool.name': 'fails' }), { attributes: { 'error.type': 'tool_error' } })
  t.match(point({ 'mcp.method.name': 'resources/read' }), { attributes: { 'error.type': '-32603', 'rpc.response.status_code': '-32603' } })
  t.equal(point({ 'mcp.method.name': 'resources/read' })?.attributes['mcp.resource.uri'], undefined, 'the resource URI is opt-in on metrics')
  t.ok(point({ 'mcp.method.name': 'tools/call', 'rpc.response.status_code': '-32602' }), 'the unknown tool is counted, without its name')
  t.ok(point({ 'gen_ai.tool.name': 'waits', 'error.type': 'cancelled' }), 'the cancelled call is counted')
  t.ok(point({ 'mcp.method.name': 'notifications/initialized' }), 'notifications are timed too')
  for (const p of duration.points) {
    for (const key of ['mcp.session.id', 'jsonrpc.request.id', 'client.address', 'client.port']) {
      t.equal(p.attributes[key], undefined, `no ${key} on a metric point (one series per session or request)`)
    }
  }
}

const ready = (recorded: Recorded): boolean => recorded.spans.some((span) => span.name === 'tools/call waits') && recorded.spans.some((span) => span.name === 'tools/call ask_model')

t.test('stdio: spans and metrics recorded in the server process', async (t) => {
  const { client } = await connectStdio('stdio-otel-server.ts', {}, { capabilities: { sampling: {} } })
  t.teardown(async () => await client.close())
  const { sampled } = await callEverything(t, client)
  const read = async (): Promise<Recorded> => {
    const dump = await client.callTool({ name: 'telemetry_dump', arguments: {} })
    return JSON.parse((dump.content as Array<{ text: string }>)[0]?.text ?? '{}') as Recorded
  }
  const recorded = await settle(read, ready)
  checkTelemetry(t, recorded, { network: { 'network.transport': 'pipe', 'network.protocol.name': undefined }, peer: { 'client.address': undefined }, sessionId: undefined }, sampled)
})

for (const kind of ['sse', 'streamable'] as const) {
  t.test(`${kind === 'sse' ? 'legacy SSE' : 'Streamable HTTP'}: spans and metrics, and the session duration`, async (t) => {
    const otel = installOtel()
    t.teardown(otel.shutdown)
    const { app, base } = await listeningCatalogApp(t)
    registerTelemetryTools(app.mcp)
    const connected = kind === 'sse'
      ? await connectSse(`${base}/sse`, { capabilities: { sampling: {} } })
      : await connectStreamable(`${base}/mcp`, { capabilities: { sampling: {} } })
    const { client, transport } = connected
    t.teardown(async () => await client.close())
    const sessionId = kind === 'sse'
      ? new URL((transport as unknown as { _endpoint: URL })._endpoint).searchParams.get('sessionId') ?? undefined
      : (transport as { sessionId?: string }).sessionId
    t.ok(sessionId, 'the client has a session id')
    const { sampled } = await callEverything(t, client)
    const recorded = await settle(otel.read, ready)
    checkTelemetry(t, recorded, {
      network: { 'network.transport': 'tcp', 'network.protocol.name': 'http', 'network.protocol.version': '1.1' },
      peer: { 'client.address': '127.0.0.1', 'client.port': Number },
      sessionId
    }, sampled)

    // The session's duration is recorded when it ends.
    if (kind === 'streamable') await (transport as { terminateSession: () => Promise<void> }).terminateSession()
    await client.close()
    const closed = await settle(otel.read, (r) => r.metrics.some((m) => m.name === 'mcp.server.session.duration' && m.points.length > 0))
    const sessions = closed.metrics.find((metric) => metric.name === 'mcp.server.session.duration')
    t.match(sessions, { unit: 's', points: [{ attributes: { 'network.transport': 'tcp', 'mcp.protocol.version': String }, value: { count: 1, buckets: { boundaries: BUCKETS } } }] })
  })
}

t.test('Streamable HTTP, protocol 2026-07-28: the _meta context parents the span, the HTTP context is linked', async (t) => {
  const otel = installOtel()
  t.teardown(otel.shutdown)
  const { app, base } = await listeningCatalogApp(t)
  registerTelemetryTools(app.mcp)
  const body = modern(7, 'tools/call', { name: 'forecast', arguments: { city: 'Oslo' } }, { traceparent: `00-${TRACE_ID}-${CLIENT_SPAN_ID}-01` })
  const response = await fetch(`${base}/mcp`, { method: 'POST', headers: headersFor(body), body: JSON.stringify(body) })
  t.equal(response.status, 200)
  await response.text()
  const { spans } = await settle(otel.read, (r) => r.spans.some((span) => span.name === 'tools/call forecast'))
  const forecast = one(t, spans, 'tools/call forecast')
  t.match(forecast, { kind: SERVER, traceId: TRACE_ID, parentSpanId: CLIENT_SPAN_ID })
  t.match(forecast.attributes, { 'mcp.protocol.version': '2026-07-28', 'jsonrpc.request.id': '7', 'network.transport': 'tcp' })
  t.equal(forecast.attributes['mcp.session.id'], undefined, 'a 2026-07-28 request has no session')
  const unknownTool = modern(8, 'tools/call', { name: 'forecast', arguments: { city: 'Rome' } })
  const second = await fetch(`${base}/mcp`, { method: 'POST', headers: headersFor(unknownTool), body: JSON.stringify(unknownTool) })
  await second.text()
  const again = await settle(otel.read, (r) => byName(r.spans, 'tools/call forecast').length === 2)
  const root = byName(again.spans, 'tools/call forecast').find((span) => span.traceId !== TRACE_ID)
  t.ok(root, 'without _meta context the span starts its own trace (no HTTP instrumentation here)')
  t.equal(root?.parentSpanId, undefined)
})
