// BENCH_OTEL=1: the server process registers the OpenTelemetry SDK the way an application does
// (a NodeTracerProvider with a BatchSpanProcessor, a MeterProvider with a periodic reader), so
// that the run measures the instrumentation with something listening. Both exporters discard
// what they get: the figure is the cost of recording (spans, attributes, histogram points,
// batching), not of a collector's network round trips, which depend on the collector.
import { metrics } from '@opentelemetry/api'
import { AggregationTemporality, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics'
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node'

const SUCCESS = { code: 0 }

const discardSpans = {
  export: (spans, done) => { done(SUCCESS) },
  shutdown: async () => {}
}

const discardMetrics = {
  export: (batch, done) => { done(SUCCESS) },
  forceFlush: async () => {},
  shutdown: async () => {},
  selectAggregationTemporality: () => AggregationTemporality.CUMULATIVE
}

export function installBenchSdk () {
  new NodeTracerProvider({ spanProcessors: [new BatchSpanProcessor(discardSpans)] }).register()
  metrics.setGlobalMeterProvider(new MeterProvider({
    readers: [new PeriodicExportingMetricReader({ exporter: discardMetrics, exportIntervalMillis: 1000 })]
  }))
}
