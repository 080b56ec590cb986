/**
 * The subset of RFC 6570 that resource URIs use: `{name}` matches one path
 * segment (no `/`), `{+name}` and `{#name}` match the rest greedily. Values are
 * percent-decoded for `{name}` only, as RFC 6570 reserved expansion leaves
 * reserved characters as they are.
 */
export interface UriTemplate {
  readonly template: string
  readonly variables: readonly string[]
  match: (uri: string) => Record<string, string> | undefined
}

const EXPRESSION = /\{([+#]?)([A-Za-z0-9_.]+)\}/g

export function isUriTemplate (uri: string): boolean {
  return /\{[+#]?[A-Za-z0-9_.]+\}/.test(uri)
}

function escapeRegExp (text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

export function compileUriTemplate (template: string): UriTemplate {
  const variables: string[] = []
  const reserved: boolean[] = []
  let pattern = '^'
  let last = 0
  for (const match of template.matchAll(EXPRESSION)) {
    pattern += escapeRegExp(template.slice(last, match.index))
    const operator = match[1] as string
    variables.push(match[2] as string)
    reserved.push(operator !== '')
    pattern += operator === '' ? '([^/?#]+)' : '(.+)'
    last = match.index + match[0].length
  }
  pattern += escapeRegExp(template.slice(last)) + '$'
  const regexp = new RegExp(pattern)
  return {
    template,
    variables,
    match (uri) {
      const found = regexp.exec(uri)
      if (found === null) return undefined
      const params: Record<string, string> = {}
      for (let i = 0; i < variables.length; i++) {
        const raw = found[i + 1] as string
        params[variables[i] as string] = reserved[i] === true ? raw : safeDecode(raw)
      }
      return params
    }
  }
}

function safeDecode (value: string): string {
  try {
    return decodeURIComponent(value)
  } catch {
    return value
  }
}
