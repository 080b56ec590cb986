import { Type, type Static } from '@sinclair/typebox'
import type { MeterProvider, TracerProvider } from '@opentelemetry/api'
import { liveObject } from './engine/live.js'
import { Defaulted, Live, strict } from './engine/schema.js'

/**
 * OpenTelemetry spans and metrics, following the MCP semantic conventions. Recorded through
 * `@opentelemetry/api`: nothing happens (and nothing is allocated) until the application
 * registers an SDK, or passes providers here.
 */
const TelemetryOptionsSchema = Type.Object({
  /**
   * False: no spans and no metrics from this server, whatever SDK the application registered.
   * Default true (active as soon as an SDK is registered; free until then).
   */
  enabled: Defaulted(Type.Boolean({ default: true })),
  /**
   * The tracer provider to record spans with, instead of the global one (`trace.getTracerProvider()`).
   * Used as given, never copied. Default: the global provider, looked up on each message so that
   * an SDK registered after the server was built is used.
   */
  tracerProvider: Type.Optional(Live<TracerProvider>()),
  /** The meter provider to record metrics with, instead of the global one (`metrics.getMeterProvider()`). Used as given. */
  meterProvider: Type.Optional(Live<MeterProvider>())
}, { ...strict, default: {} })
export type TelemetryOptions = Static<typeof TelemetryOptionsSchema>

export const telemetryProperties = {
  /** OpenTelemetry traces and metrics (MCP semantic conventions); see the README, "Observability". */
  telemetry: Defaulted(TelemetryOptionsSchema)
}

/** The providers: SDK objects, which must not be cloned or frozen. */
export const TELEMETRY_PROVIDERS = [
  liveObject(['telemetry', 'tracerProvider'], ['getTracer'], 'an OpenTelemetry TracerProvider'),
  liveObject(['telemetry', 'meterProvider'], ['getMeter'], 'an OpenTelemetry MeterProvider')
]
