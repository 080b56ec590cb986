// What an operator reads: the Prometheus scrape of the conventions' histogram, the gauges and
// counters beyond the conventions, and that no credential reaches any span or metric.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus'
import { MeterProvider } from '@opentelemetry/sdk-metrics'
import { connectSse, connectStreamable } from '../helpers/clients.js'
import { installOtel, registerTelemetryTools, type Recorded } from '../fixtures/otel.js'
import { listeningCatalogApp } from '../helpers/serve.js'

const KEY = 'sk-live-0123456789abcdef-SECRETKEY'
const WRONG_KEY = 'sk-live-WRONG-9876543210-NOTAKEY'
const META_TOKEN = 'eyJhbGciOiJIUzI1NiJ9.META-TOKEN.sig'
const URI_PASSWORD = 'hunter2-URI-PASSWORD'
const URI_TOKEN = 'URI-QUERY-TOKEN-42'

t.test('a Prometheus scrape shows mcp_server_operation_duration buckets for the called tool', async (t) => {
  const exporter = new PrometheusExporter({ preventServerStart: true })
  const meterProvider = new MeterProvider({ readers: [exporter] })
  t.teardown(async () => await meterProvider.shutdown())
  // The exporter's own handler on a free loopback port: what Prometheus would scrape.
  const scrapeServer = createServer((request, response) => { exporter.getMetricsRequestHandler(request, response) })
  await new Promise<void>((resolve) => scrapeServer.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { scrapeServer.close() })
  const { app, base } = await listeningCatalogApp(t, { telemetry: { meterProvider } })
  registerTelemetryTools(app.mcp)
  const { client } = await connectStreamable(`${base}/mcp`)
  t.teardown(async () => await client.close())
  await client.callTool({ name: 'forecast', arguments: { city: 'Lima' } })
  await client.callTool({ name: 'forecast', arguments: { city: 'Quito' } })

  const { port } = scrapeServer.address() as AddressInfo
  const scrape = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
  const buckets = scrape.split('\n').filter((line) => /^mcp_server_operation_duration(_seconds)?_bucket\{/.test(line) && line.includes('gen_ai_tool_name="forecast"'))
  t.equal(buckets.length, 15, 'the 14 advised boundaries and +Inf')
  t.match(buckets[0], /mcp_method_name="tools\/call"/)
  t.match(buckets[0], /le="0\.01"/)
  t.match(buckets.at(-1), /le="\+Inf"\} 2$/)
  t.match(scrape, /mcp_server_operation_duration(_seconds)?_count\{[^}]*gen_ai_tool_name="forecast"[^}]*\} 2/)
  t.match(scrape, /# TYPE mcp_server_operation_duration(_seconds)? histogram/)
  t.match(scrape, /fastify_mcp_server_sessions_open(_sessions)?\{[^}]*\} 1/, 'the open sessions gauge')
})

t.test('gauges and counters beyond the conventions: sessions, streams, auth failures, limit refusals', async (t) => {
  const otel = installOtel()
  t.teardown(otel.shutdown)
  const { base } = await listeningCatalogApp(t, { maxSessions: 1, auth: { type: 'apikey', options: { keys: [KEY] } } })
  const { client } = await connectSse(`${base}/sse`, { headers: { 'x-api-key': KEY } })
  t.teardown(async () => await client.close())
  const refused = await fetch(`${base}/sse`, { headers: { 'x-api-key': KEY, accept: 'text/event-stream' } })
  t.equal(refused.status, 503, 'a second session is over maxSessions')
  await refused.text()
  const wrong = await fetch(`${base}/mcp`, { method: 'POST', headers: { 'x-api-key': WRONG_KEY, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' })
  t.equal(wrong.status, 401)
  await wrong.text()
  const missing = await fetch(`${base}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' })
  t.equal(missing.status, 401)
  await missing.text()

  const { metrics } = await otel.read()
  const metric = (name: string): Recorded['metrics'][number] | undefined => metrics.find((m) => m.name === name)
  t.match(metric('fastify_mcp.server.sessions.open'), { unit: '{session}', points: [{ value: 1 }] })
  t.match(metric('fastify_mcp.server.streams.open')?.points.find((p) => p.attributes['fastify_mcp.stream.kind'] === 'sse'), { value: 1 })
  t.match(metric('fastify_mcp.server.limit.refusals'), { points: [{ attributes: { 'fastify_mcp.limit': 'maxSessions' }, value: 1 }] })
  const failures = metric('fastify_mcp.server.auth.failures')?.points ?? []
  t.equal(failures.length, 2, 'a wrong key and a missing one are two reasons')
  t.same(failures.map((point) => point.attributes['fastify_mcp.auth.reason']).sort(), ['invalid_token', 'missing_credential'])
  for (const point of failures) t.match(point, { attributes: { 'fastify_mcp.auth.method': 'apikey' }, value: 1 })
  t.notMatch(JSON.stringify(metrics), WRONG_KEY, 'the presented key is not recorded')
})

t.test('no credential, token or API key in any span or metric', async (t) => {
  const otel = installOtel()
  t.teardown(otel.shutdown)
  const { app, base } = await listeningCatalogApp(t, { auth: { type: 'apikey', options: { keys: [KEY], queryParam: 'api_key' } } })
  registerTelemetryTools(app.mcp)
  const streamable = await connectStreamable(`${base}/mcp`, { headers: { 'x-api-key': KEY } })
  t.teardown(async () => await streamable.client.close())
  const sse = await connectSse(`${base}/sse`, { headers: { 'x-api-key': KEY } })
  t.teardown(async () => await sse.client.close())
  // The key in the URL (the query parameter), on a request of its own.
  const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }
  const inQuery = await fetch(`${base}/mcp?api_key=${KEY}`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(initialize) })
  t.equal(inQuery.status, 200)
  await inQuery.text()
  for (const client of [streamable.client, sse.client]) {
    await client.callTool({ name: 'forecast', arguments: { city: 'Bern', apiKey: KEY }, _meta: { authorization: `Bearer ${META_TOKEN}`, token: META_TOKEN } })
    await t.rejects(client.readResource({ uri: `https://admin:${URI_PASSWORD}@example.com/file?token=${URI_TOKEN}` }))
    await t.rejects(client.callTool({ name: `leak-${KEY}`, arguments: {} }))
  }
  const wrong = await fetch(`${base}/mcp?api_key=${WRONG_KEY}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
  await wrong.text()

  const recorded = await otel.read()
  const read = recorded.spans.find((span) => span.name === 'resources/read')
  t.equal(read?.attributes['mcp.resource.uri'], 'https://example.com/file', 'the URI is kept, without userinfo or query')
  t.ok(recorded.spans.filter((span) => span.name === 'tools/call forecast').length === 2)
  const everything = JSON.stringify(recorded)
  for (const secret of [KEY, WRONG_KEY, META_TOKEN, URI_PASSWORD, URI_TOKEN]) {
    t.notOk(everything.includes(secret), `${secret.slice(0, 12)}... appears nowhere`)
  }
})
