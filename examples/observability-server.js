#!/usr/bin/env node
// An MCP server whose traces go to an OTLP collector and whose metrics Prometheus scrapes.
//   node examples/observability-server.js [--port 8080] [--metrics-port 9464] [--host 127.0.0.1]
// Traces: OTLP over HTTP to $OTEL_EXPORTER_OTLP_ENDPOINT (default http://localhost:4318), batched.
// Metrics: http://<host>:<metrics-port>/metrics in the Prometheus text format.
// The SDK packages are the application's choice (devDependencies of this repository); the server
// itself only uses @opentelemetry/api, and records nothing until an SDK like this one is registered.
import { createServer } from 'node:http'
import { parseArgs } from 'node:util'
import { trace } from '@opentelemetry/api'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus'
import { MeterProvider } from '@opentelemetry/sdk-metrics'
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node'
import { MCPServer, Type } from '../dist/index.js'

const { values: flags } = parseArgs({
  options: {
    port: { type: 'string', default: '8080' },
    'metrics-port': { type: 'string', default: '9464' },
    host: { type: 'string', default: '127.0.0.1' }
  }
})

// Traces: registered globally, with the AsyncLocalStorage context manager and W3C propagation, so
// that spans a handler starts (or a library it calls) are children of the MCP server span.
const tracerProvider = new NodeTracerProvider({ spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] })
tracerProvider.register()

// Metrics: handed to the server through its `telemetry` option (a global registration with
// metrics.setGlobalMeterProvider works too). The exporter's handler is served on its own port.
const prometheus = new PrometheusExporter({ preventServerStart: true })
const meterProvider = new MeterProvider({ readers: [prometheus] })
const metricsServer = createServer((request, response) => { prometheus.getMetricsRequestHandler(request, response) })
await new Promise((resolve) => metricsServer.listen(Number(flags['metrics-port']), flags.host, resolve))
const metricsAddress = metricsServer.address()

const server = new MCPServer({
  name: 'observed',
  version: '1.0.0',
  transport: { type: 'sse', options: { port: Number(flags.port), host: flags.host } },
  telemetry: { meterProvider }
})

server.tool({
  name: 'forecast',
  description: 'The weather in a city',
  inputSchema: Type.Object({ city: Type.String() })
}, async ({ city }, ctx) => {
  // The request's span: add what matters to you (never secrets: traces are kept for weeks).
  ctx.span.setAttribute('app.city', city)
  // A child span of the request, like any instrumented library would make.
  return await trace.getTracer('observed-example').startActiveSpan('lookup forecast', async (span) => {
    try {
      return { content: [{ type: 'text', text: `Sunny in ${city}` }] }
    } finally {
      span.end()
    }
  })
})

const { url } = await server.start()
process.stderr.write(`MCP: ${url}/mcp (Streamable HTTP), ${url}/sse (legacy SSE)\n`)
process.stderr.write(`metrics: http://${flags.host}:${metricsAddress.port}/metrics\n`)

const shutdown = async () => {
  await server.stop()
  metricsServer.close()
  // Flushes the spans still batched.
  await tracerProvider.shutdown()
  await meterProvider.shutdown()
}
process.once('SIGINT', shutdown)
process.once('SIGTERM', shutdown)
