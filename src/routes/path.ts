/**
 * A Fastify route path (find-my-way syntax) read once: static text, `:name` parameters (with an
 * optional `(regex)`, several per segment as in `/:from-:to`), a last optional `:name?`, a
 * trailing `*` wildcard, and `::` for a literal colon. A route tool fills it back in from the
 * call's arguments.
 */
export interface RoutePath {
  /** Parameter names in order (`*` for the wildcard). */
  readonly params: readonly string[]
  /** The optional last parameter, when the path ends with `:name?`. */
  readonly optional: string | undefined
  /** The path's words for a tool name: static text and parameter names, without regexes. */
  readonly words: string
  /** The concrete path for these parameter values (each encoded; the wildcard keeps its slashes). */
  build: (values: Readonly<Record<string, unknown>>) => string
}

type Part = { text: string } | { param: string }

export function parseRoutePath (path: string): RoutePath {
  // find-my-way expands `/:id?` into two routes; Fastify's onRoute sees the path as declared.
  const optionalMatch = /\/:([^/()]*?)\?(\/?)$/.exec(path)
  const declared = optionalMatch === null ? path : path.slice(0, optionalMatch.index) + `/:${optionalMatch[1] as string}${optionalMatch[2] as string}`
  const parts: Part[] = []
  let text = ''
  for (let i = 0; i < declared.length; i++) {
    const char = declared[i] as string
    if (char === ':' && declared[i + 1] === ':') {
      text += ':'
      i++
    } else if (char === ':') {
      let end = i + 1
      while (end < declared.length && !'(-./'.includes(declared[end] as string)) end++
      if (text !== '') parts.push({ text })
      text = ''
      parts.push({ param: declared.slice(i + 1, end) })
      i = (declared[end] === '(' ? closingParenthesis(declared, end) : end) - 1
    } else if (char === '*' && i === declared.length - 1) {
      if (text !== '') parts.push({ text })
      text = ''
      parts.push({ param: '*' })
    } else {
      text += char
    }
  }
  if (text !== '') parts.push({ text })
  const optional = optionalMatch === null ? undefined : optionalMatch[1]
  return {
    params: parts.flatMap((part) => 'param' in part ? [part.param] : []),
    optional,
    words: parts.map((part) => 'param' in part ? (part.param === '*' ? '' : part.param) : part.text).join(''),
    build: (values) => build(parts, optional, values)
  }
}

function build (parts: readonly Part[], optional: string | undefined, values: Readonly<Record<string, unknown>>): string {
  let path = ''
  for (const part of parts) {
    if ('text' in part) {
      path += part.text
      continue
    }
    const value = values[part.param]
    if (value === undefined && part.param === optional) {
      // `/users/:id?` without an id is `/users`: the slash before the parameter goes with it.
      path = path.endsWith('/') && path.length > 1 ? path.slice(0, -1) : path
      continue
    }
    const text = value === undefined ? '' : String(value)
    path += part.param === '*' ? text.split('/').map(encodeURIComponent).join('/') : encodeURIComponent(text)
  }
  return path
}

/** The index just past the parenthesis closing the one at `open` (a regex may nest them). */
function closingParenthesis (path: string, open: number): number {
  let depth = 0
  for (let i = open; i < path.length; i++) {
    if (path[i] === '\\') i++
    else if (path[i] === '(') depth++
    else if (path[i] === ')' && --depth === 0) return i + 1
  }
  return path.length
}
