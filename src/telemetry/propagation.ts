import { context, propagation, type Context, type TextMapGetter, type TextMapSetter } from '@opentelemetry/api'
import { isRecord } from '../util/is-record.js'

/**
 * `params._meta` as a W3C carrier, as the conventions ask: `traceparent`, `tracestate` and
 * `baggage` travel there, not in HTTP headers (one HTTP request may carry several MCP messages,
 * and stdio has no headers). Only string values are read: `_meta` comes from the client.
 */
const metaGetter: TextMapGetter<Record<string, unknown>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key]
    return typeof value === 'string' ? value : undefined
  }
}

const metaSetter: TextMapSetter<Record<string, unknown>> = {
  set: (carrier, key, value) => { carrier[key] = value }
}

/** The context a client put in `_meta`, over `base`; undefined when it sent no `traceparent`. */
export function extractFromMeta (base: Context, meta: Record<string, unknown> | undefined): Context | undefined {
  // Checked first: most requests carry no trace context, and extraction allocates.
  if (meta === undefined || typeof meta.traceparent !== 'string') return undefined
  return propagation.extract(base, meta, metaGetter)
}

/**
 * `params` with the context of `spanContext` added to its `_meta`: a copy, never the caller's
 * object (a handler may reuse its params for several requests).
 */
export function injectIntoParams (params: Record<string, unknown> | undefined, spanContext: Context): Record<string, unknown> {
  const previous = params?._meta
  const meta: Record<string, unknown> = isRecord(previous) ? { ...previous } : {}
  propagation.inject(spanContext, meta, metaSetter)
  return { ...params, _meta: meta }
}

export { context }
