import {
  metrics, trace, ValueType,
  type Counter, type Histogram, type Meter, type MeterProvider, type Tracer, type TracerProvider
} from '@opentelemetry/api'
import {
  DURATION_BUCKETS, METRIC_AUTH_FAILURES, METRIC_LIMIT_REFUSALS, METRIC_SERVER_OPERATION_DURATION,
  METRIC_SERVER_SESSION_DURATION, METRIC_SESSIONS_OPEN, METRIC_SLOW_CONSUMERS, METRIC_STREAMS_OPEN, SCOPE_NAME, ATTR_STREAM_KIND
} from './names.js'

// Read from package.json at build time would need a JSON import; the scope version is informative only.
const SCOPE_VERSION = '0.1.0'

/** The instruments of one meter: created together, replaced together when the provider changes. */
export interface Instruments {
  readonly operationDuration: Histogram
  readonly sessionDuration: Histogram
  readonly slowConsumers: Counter
  readonly authFailures: Counter
  readonly limitRefusals: Counter
  readonly meter: Meter
}

/** Counts the server reports through observable gauges, read only when a reader collects. */
export interface GaugeSource {
  sessions: () => number
  streams: () => Array<[kind: string, count: number]>
}

/**
 * Where `@opentelemetry/api` 1.x keeps every global registration (tracer and meter providers,
 * propagator, context manager, diag logger): absent until something is registered. The key is
 * the API's own, shared by every copy of it in the process so that they agree; reading it is
 * one property lookup, which is all a server without an SDK pays per message.
 */
const API_GLOBAL = Symbol.for('opentelemetry.js.api.1')

function isNoop (provider: object): boolean {
  // The API's no-op classes are not exported; their names are stable across 1.x.
  const name = provider.constructor?.name
  return name === 'NoopTracerProvider' || name === 'NoopMeterProvider'
}

/**
 * Finds the tracer and meter to use, cheaply enough to ask once per message. The application may
 * register its SDK after the server was built, and the metrics API has no proxy (a meter taken
 * from the no-op provider stays no-op forever), so the providers are looked up each time and the
 * tracer and instruments rebuilt only when the provider behind them changed. With no SDK both
 * answers are undefined, and the dispatcher allocates nothing for telemetry.
 */
export class Providers {
  private readonly tracerProvider: TracerProvider | undefined
  private readonly meterProvider: MeterProvider | undefined
  private readonly gauges: GaugeSource
  private traceDelegate: object | undefined
  private cachedTracer: Tracer | undefined
  private lastMeterProvider: MeterProvider | undefined
  private cachedInstruments: Instruments | undefined

  constructor (options: { tracerProvider?: TracerProvider | undefined, meterProvider?: MeterProvider | undefined }, gauges: GaugeSource) {
    this.tracerProvider = options.tracerProvider
    this.meterProvider = options.meterProvider
    this.gauges = gauges
  }

  /** False when nothing can be listening: no provider given and nothing registered with the API. */
  mayRecord (): boolean {
    return this.tracerProvider !== undefined || this.meterProvider !== undefined || (globalThis as Record<symbol, unknown>)[API_GLOBAL] !== undefined
  }

  tracer (): Tracer | undefined {
    const provider = this.tracerProvider ?? trace.getTracerProvider()
    // The global provider is a proxy whose delegate is the SDK's provider, or the no-op one.
    const getDelegate = (provider as { getDelegate?: () => object }).getDelegate
    const delegate = typeof getDelegate === 'function' ? getDelegate.call(provider) : provider
    if (delegate !== this.traceDelegate) {
      this.traceDelegate = delegate
      this.cachedTracer = isNoop(delegate) ? undefined : provider.getTracer(SCOPE_NAME, SCOPE_VERSION)
    }
    return this.cachedTracer
  }

  instruments (): Instruments | undefined {
    const provider = this.meterProvider ?? metrics.getMeterProvider()
    if (provider !== this.lastMeterProvider) {
      this.lastMeterProvider = provider
      this.cachedInstruments = isNoop(provider) ? undefined : this.create(provider.getMeter(SCOPE_NAME, SCOPE_VERSION))
    }
    return this.cachedInstruments
  }

  private create (meter: Meter): Instruments {
    const advice = { explicitBucketBoundaries: DURATION_BUCKETS }
    const sessions = meter.createObservableUpDownCounter(METRIC_SESSIONS_OPEN, {
      description: 'MCP sessions open now (legacy SSE, Streamable HTTP and stdio sessions; not 2026-07-28 requests, which have none).',
      unit: '{session}',
      valueType: ValueType.INT
    })
    sessions.addCallback((result) => { result.observe(this.gauges.sessions()) })
    const streams = meter.createObservableUpDownCounter(METRIC_STREAMS_OPEN, {
      description: 'Server-sent event streams open now, by kind.',
      unit: '{stream}',
      valueType: ValueType.INT
    })
    streams.addCallback((result) => {
      for (const [kind, count] of this.gauges.streams()) result.observe(count, { [ATTR_STREAM_KIND]: kind })
    })
    return {
      meter,
      operationDuration: meter.createHistogram(METRIC_SERVER_OPERATION_DURATION, {
        description: 'MCP request or notification duration as observed on the receiver from the time it was received until the result or ack is sent.',
        unit: 's',
        advice
      }),
      sessionDuration: meter.createHistogram(METRIC_SERVER_SESSION_DURATION, {
        description: 'The duration of the MCP session as observed on the MCP server.',
        unit: 's',
        advice
      }),
      slowConsumers: meter.createCounter(METRIC_SLOW_CONSUMERS, {
        description: 'Sessions closed because the client read its stream too slowly (more than maxQueuedBytes waiting).',
        unit: '{session}',
        valueType: ValueType.INT
      }),
      authFailures: meter.createCounter(METRIC_AUTH_FAILURES, {
        description: 'Requests to the MCP routes refused by authentication, by auth method and reason (never the credential).',
        unit: '{request}',
        valueType: ValueType.INT
      }),
      limitRefusals: meter.createCounter(METRIC_LIMIT_REFUSALS, {
        description: 'Requests and sessions refused because a configured limit was reached, by limit.',
        unit: '{refusal}',
        valueType: ValueType.INT
      })
    }
  }
}
