import type { RouteCandidate, RoutePredicate } from '../schemas/routes.js'

/** One matcher of `include` / `exclude`, as resolved (deep-readonly). */
type Matcher = Readonly<{ method?: string | readonly string[], url?: string, tag?: string, operationId?: string }>
/** `include` / `exclude` as the options give them. */
export type Selection = readonly Matcher[] | RoutePredicate | undefined

/** Methods a route tool may have: the ones with a meaning a model can use. HEAD and OPTIONS never. */
export const TOOL_METHODS: ReadonlySet<string> = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'])

/** Whether `route` (for `method`, one of its methods) is selected by `selection`. */
export function selects (selection: Selection, route: RouteCandidate, method: string): boolean {
  if (selection === undefined) return false
  if (typeof selection === 'function') return selection(route) === true
  return selection.some((matcher) => matches(matcher, route, method))
}

function matches (matcher: Matcher, route: RouteCandidate, method: string): boolean {
  if (matcher.method !== undefined) {
    const methods = typeof matcher.method === 'string' ? [matcher.method] : matcher.method
    if (!methods.some((listed) => listed.toUpperCase() === method)) return false
  }
  if (matcher.url !== undefined && !globPattern(matcher.url).test(route.url)) return false
  const schema = route.schema as { tags?: unknown, operationId?: unknown } | undefined
  if (matcher.tag !== undefined && !(Array.isArray(schema?.tags) && schema.tags.includes(matcher.tag))) return false
  if (matcher.operationId !== undefined && schema?.operationId !== matcher.operationId) return false
  return true
}

const compiled = new Map<string, RegExp>()

/** `*` within one segment, `**` across segments, `?` one character; the rest is literal. */
function globPattern (glob: string): RegExp {
  let pattern = compiled.get(glob)
  if (pattern !== undefined) return pattern
  let source = ''
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i] as string
    if (char === '*' && glob[i + 1] === '*') {
      // `/api/**` also matches `/api` itself: "everything under /api" includes its root.
      if (source.endsWith('/') && i + 2 === glob.length) source = `${source.slice(0, -1)}(?:/.*)?`
      else source += '.*'
      i++
    } else if (char === '*') {
      source += '[^/]*'
    } else if (char === '?') {
      source += '[^/]'
    } else {
      source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&')
    }
  }
  pattern = new RegExp(`^${source}$`)
  compiled.set(glob, pattern)
  return pattern
}
