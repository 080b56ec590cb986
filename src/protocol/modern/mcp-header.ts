import { isRecord } from '../../util/is-record.js'
/**
 * `x-mcp-header` (SEP-2243, `server/tools.mdx`): a tool parameter whose
 * schema says `"x-mcp-header": "Region"` is mirrored by HTTP clients into the
 * `Mcp-Param-Region` header, which the server checks against the body. Read
 * once per tool, at registration: an annotation that breaks the revision's
 * constraints makes the whole tool definition invalid.
 */

/** One mirrored parameter: its `properties` path from the schema root, and the header name part. */
export interface MirroredParam {
  readonly path: readonly string[]
  readonly header: string
}

const HEADER_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
const PRIMITIVES = new Set(['string', 'integer', 'boolean'])

/**
 * The tool's mirrored parameters, or a sentence saying why its annotations
 * are invalid: empty or not a header token, repeated (case-insensitively), on
 * a parameter that is not a string, integer or boolean, or not statically
 * reachable from the root through `properties` alone (under `items`, `anyOf`,
 * `$defs`, `if`... is refused).
 */
export function readMirroredParams (inputSchema: unknown): { params: MirroredParam[] } | { problem: string } {
  const params: MirroredParam[] = []
  const seen = new Set<string>()
  let problem: string | undefined
  const visit = (node: unknown, path: string[] | undefined, where: string): void => {
    if (problem !== undefined) return
    if (Array.isArray(node)) {
      node.forEach((item, i) => { visit(item, undefined, `${where}[${i}]`) })
      return
    }
    if (!isRecord(node)) return
    if (Object.hasOwn(node, 'x-mcp-header')) {
      const header = node['x-mcp-header']
      if (path === undefined || path.length === 0) {
        problem = `x-mcp-header at ${where} is not on a parameter reachable from the root through "properties" alone`
        return
      }
      if (typeof header !== 'string' || !HEADER_TOKEN.test(header)) {
        problem = `x-mcp-header at ${where} must be a non-empty HTTP header token`
        return
      }
      if (seen.has(header.toLowerCase())) {
        problem = `x-mcp-header "${header}" is used twice (names are case-insensitive)`
        return
      }
      if (typeof node.type !== 'string' || !PRIMITIVES.has(node.type)) {
        problem = `x-mcp-header "${header}" must be on a string, integer or boolean parameter`
        return
      }
      seen.add(header.toLowerCase())
      params.push({ path, header })
    }
    for (const [key, child] of Object.entries(node)) {
      if (key === 'properties' && path !== undefined && isRecord(child)) {
        for (const [name, property] of Object.entries(child)) visit(property, [...path, name], `${where}.properties.${name}`)
      } else {
        // Anywhere else (items, anyOf, $defs, if/then/else, additionalProperties...) is not statically reachable.
        visit(child, undefined, `${where}.${key}`)
      }
    }
  }
  visit(inputSchema, [], 'inputSchema')
  return problem === undefined ? { params } : { problem }
}
