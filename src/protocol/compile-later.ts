import type { JsonSchema } from './definitions.js'

// Keywords whose string value changes how Ajv resolves references (a new base URI, an anchor, a
// dynamic reference): a schema using one is compiled at registration, as before.
const RESOLUTION_KEYWORDS = new Set(['$id', 'id', '$anchor', '$dynamicAnchor', '$dynamicRef', '$recursiveAnchor', '$recursiveRef'])

/**
 * Whether a schema may be compiled at its first use instead of at registration, with every mistake
 * still refused at registration. Compiling costs 1-3 ms per schema (a 100-tool catalog spent half a
 * second of its start in Ajv), while checking a schema against its meta-schema costs some 50 µs.
 * What the meta-schema check misses, and Ajv's compile refuses, is looked for here: a `$ref` that
 * resolves to nothing, a regular expression that does not compile, `nullable` and `$async`. A
 * schema with anything this walk cannot vouch for (a reference other than a JSON pointer into the
 * schema itself, a keyword that moves the base URI, a nested `$schema`) answers false, and is
 * compiled at registration: a false answer costs time, never a late error.
 *
 * The walk visits every object of the schema, data (`const`, `enum`, `default`) included: a data
 * object that looks like a reference can only make the answer false.
 */
export function compilesLater (root: JsonSchema): boolean {
  const pending: unknown[] = [root]
  while (pending.length > 0) {
    const node = pending.pop()
    if (Array.isArray(node)) {
      for (const item of node) if (typeof item === 'object' && item !== null) pending.push(item)
      continue
    }
    for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
      if (typeof value === 'object' && value !== null) {
        if (key === 'patternProperties' && !Object.keys(value).every(isUnicodeRegExp)) return false
        pending.push(value)
      } else if (typeof value === 'string') {
        if (RESOLUTION_KEYWORDS.has(key)) return false
        if (key === '$schema' && node !== root) return false
        if (key === '$ref' && !pointsInto(root, value)) return false
        if (key === 'pattern' && !isUnicodeRegExp(value)) return false
      } else if (typeof value === 'boolean' && (key === 'nullable' || key === '$async')) {
        return false
      }
    }
  }
  return true
}

/** Ajv compiles `pattern` and `patternProperties` with the `u` flag. */
function isUnicodeRegExp (source: string): boolean {
  try {
    // eslint-disable-next-line no-new -- constructed to see whether it throws
    new RegExp(source, 'u')
    return true
  } catch {
    return false
  }
}

/**
 * A `$ref` that is a JSON pointer (`#`, `#/$defs/Name`) reaching a schema (an object or a boolean)
 * of this same document. Percent-encoded pointers are left to Ajv.
 */
function pointsInto (root: JsonSchema, ref: string): boolean {
  if (ref === '#') return true
  if (!ref.startsWith('#/') || ref.includes('%')) return false
  let node: unknown = root
  for (const escaped of ref.slice(2).split('/')) {
    const segment = escaped.replaceAll('~1', '/').replaceAll('~0', '~')
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, segment)) return false
    node = (node as Record<string, unknown>)[segment]
  }
  return typeof node === 'boolean' || (typeof node === 'object' && node !== null && !Array.isArray(node))
}
