/** Median of numbers (undefined values ignored). */
export function median (values) {
  const list = values.filter((v) => typeof v === 'number' && Number.isFinite(v)).sort((a, b) => a - b)
  if (list.length === 0) return undefined
  const mid = list.length >> 1
  return list.length % 2 === 1 ? list[mid] : (list[mid - 1] + list[mid]) / 2
}

/** p50/p90/p99/max of latency samples (ms). */
export function percentiles (samples) {
  if (samples.length === 0) return { p50: undefined, p90: undefined, p99: undefined, max: undefined }
  const sorted = Float64Array.from(samples).sort()
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: sorted[sorted.length - 1] }
}

/** Median of each numeric leaf across several result objects of the same shape. */
export function medianOf (results) {
  const first = results.find((r) => r !== undefined && r !== null)
  if (first === undefined) return undefined
  const out = Array.isArray(first) ? [] : {}
  for (const key of Object.keys(first)) {
    const values = results.map((r) => r?.[key])
    if (typeof first[key] === 'number') out[key] = median(values)
    else if (first[key] !== null && typeof first[key] === 'object') out[key] = medianOf(values)
    else out[key] = first[key]
  }
  return out
}
