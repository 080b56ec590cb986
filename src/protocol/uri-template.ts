/**
 * The subset of RFC 6570 that resource URIs use: `{name}` matches one or more
 * characters other than `/`, `?` and `#`; `{+name}` and `{#name}` match one or
 * more of any character. Values are percent-decoded for `{name}` only, as RFC
 * 6570 reserved expansion leaves reserved characters as they are.
 *
 * The matching rule: the URI must be the template's literal text with every
 * variable replaced by a value it allows; when several splits fit, the first
 * variable takes the longest value that lets the rest match, then the second,
 * and so on (the split a regular expression would choose). It is computed
 * without backtracking, in two passes over the URI (see {@link match}), so the
 * work is linear in the URI's length for every template: a template such as
 * `db://{schema}.{table}` once compiled to a backtracking regular expression
 * that spent seconds on `db://` + 100,000 dots.
 */
export interface UriTemplate {
  readonly template: string
  readonly variables: readonly string[]
  /**
   * The variables' values, or undefined when `uri` does not match. `meter`,
   * when given, counts the positions visited (tests prove the work linear).
   */
  match: (uri: string, meter?: StepMeter) => Record<string, string> | undefined
}

export interface StepMeter {
  steps: number
}

/** One variable and the literal text that follows it (possibly empty). */
interface Segment {
  readonly name: string
  readonly reserved: boolean
  readonly literal: string
}

const EXPRESSION = /\{([+#]?)([A-Za-z0-9_.]+)\}/g

export function isUriTemplate (uri: string): boolean {
  return /\{[+#]?[A-Za-z0-9_.]+\}/.test(uri)
}

export function compileUriTemplate (template: string): UriTemplate {
  const segments: Segment[] = []
  let prefix: string | undefined
  let last = 0
  let pending: { name: string, reserved: boolean } | undefined
  for (const found of template.matchAll(EXPRESSION)) {
    const literal = template.slice(last, found.index)
    if (pending === undefined) prefix = literal
    else segments.push({ ...pending, literal })
    pending = { name: found[2] as string, reserved: found[1] !== '' }
    last = found.index + found[0].length
  }
  const tail = template.slice(last)
  if (pending === undefined) prefix = tail
  else segments.push({ ...pending, literal: tail })
  const head = prefix as string
  return {
    template,
    variables: segments.map((segment) => segment.name),
    match: (uri, meter) => match(head, segments, uri, meter)
  }
}

/** `/`, `?` and `#` end a simple `{name}` value. */
function isDelimiter (code: number): boolean {
  return code === 0x2f || code === 0x3f || code === 0x23
}

/**
 * Segment j is variable j followed by its literal. Backward pass, last segment
 * first: `ends[j][q]` is set when variable j may end at q, that is, its literal
 * occurs at q and the segments after it match from there to the end of the
 * URI; `starts` (recomputed per segment) is set at p when segment j matches
 * from p to the end. Forward pass: from the end of the prefix, each variable
 * takes the largest allowed end, which `ends` guarantees leaves a match for
 * the rest. Each pass visits every position once per segment, and a literal is
 * compared only where the rest is known to match, so the work is
 * O(length of the URI × size of the template).
 */
function match (prefix: string, segments: readonly Segment[], uri: string, meter: StepMeter | undefined): Record<string, string> | undefined {
  if (!uri.startsWith(prefix)) return undefined
  const start = prefix.length
  const n = uri.length
  if (segments.length === 0) return n === start ? {} : undefined
  let steps = 0

  const ends: Uint8Array[] = new Array(segments.length)
  let after = new Uint8Array(n + 1) // positions from which the segments after j match
  after[n] = 1
  for (let j = segments.length - 1; j >= 0; j--) {
    const { literal, reserved } = segments[j] as Segment
    const end = new Uint8Array(n + 1)
    // A value is at least one character, so the earliest end is start + 1.
    for (let q = n - literal.length; q > start; q--) {
      steps++
      if (after[q + literal.length] === 1 && uri.startsWith(literal, q)) end[q] = 1
    }
    ends[j] = end
    const from = new Uint8Array(n + 1)
    let nearestEnd = Infinity // the smallest allowed end greater than p
    let delimiter = n // the first delimiter at or after p: a simple value cannot reach past it
    for (let p = n - 1; p >= start; p--) {
      steps++
      if (end[p + 1] === 1) nearestEnd = p + 1
      if (!reserved && isDelimiter(uri.charCodeAt(p))) delimiter = p
      if (nearestEnd <= (reserved ? n : delimiter)) from[p] = 1
    }
    after = from
  }
  if (after[start] !== 1) {
    if (meter !== undefined) meter.steps += steps
    return undefined
  }

  const params: Record<string, string> = {}
  let p = start
  for (let j = 0; j < segments.length; j++) {
    const { name, literal, reserved } = segments[j] as Segment
    const end = ends[j] as Uint8Array
    let limit = n
    if (!reserved) {
      limit = p
      while (limit < n && !isDelimiter(uri.charCodeAt(limit))) { limit++; steps++ }
    }
    let q = limit
    while (end[q] !== 1) { q--; steps++ }
    const raw = uri.slice(p, q)
    params[name] = reserved ? raw : safeDecode(raw)
    p = q + literal.length
  }
  if (meter !== undefined) meter.steps += steps
  return params
}

function safeDecode (value: string): string {
  try {
    return decodeURIComponent(value)
  } catch {
    return value
  }
}
