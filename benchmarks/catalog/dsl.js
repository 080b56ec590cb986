// A small schema language for the benchmark catalog, written once and turned into what each
// framework's users write: plain JSON Schema (with `$defs` and `$ref`) for ours, zod for the
// official SDKs (shared sub-schemas as shared `const`s, the way zod users reuse an `Address`).
// Both come from one description, so every server validates the same shapes; `sample` builds a
// value valid against it (the call's arguments, a tool's output).

/** A string; `o`: enum, minLength, maxLength, pattern (with `example`, a value matching it), description. */
export const str = (o = {}) => ({ t: 'string', ...o })
export const int = (o = {}) => ({ t: 'integer', ...o })
export const num = (o = {}) => ({ t: 'number', ...o })
export const bool = (o = {}) => ({ t: 'boolean', ...o })
export const arr = (items, o = {}) => ({ t: 'array', items, ...o })
/** An object; every property is required unless wrapped in {@link opt}. */
export const obj = (props, o = {}) => ({ t: 'object', props, ...o })
/** A shared definition by name (`$ref: '#/$defs/<name>'`; the same zod `const` everywhere). */
export const ref = (name, o = {}) => ({ t: 'ref', name, ...o })
export const opt = (node) => ({ ...node, optional: true })

/**
 * JSON Schema 2020-12 of `node`; the definitions it reaches (transitively) go into `$defs` of the
 * root, referenced with `$ref`.
 */
export function toJsonSchema (node, defs) {
  const used = new Set()
  const root = json(node, defs, used)
  // Definitions referencing other definitions: walk until nothing new is reached.
  const out = {}
  const queue = [...used]
  while (queue.length > 0) {
    const name = queue.shift()
    if (out[name] !== undefined) continue
    const inner = new Set()
    out[name] = json(defs[name], defs, inner)
    for (const next of inner) if (out[next] === undefined) queue.push(next)
  }
  return Object.keys(out).length === 0 ? root : { ...root, $defs: out }
}

function json (node, defs, used) {
  const base = node.description === undefined ? {} : { description: node.description }
  switch (node.t) {
    case 'ref':
      used.add(node.name)
      return { $ref: `#/$defs/${node.name}`, ...base }
    case 'string': {
      const s = { type: 'string', ...base }
      if (node.enum !== undefined) s.enum = node.enum
      if (node.minLength !== undefined) s.minLength = node.minLength
      if (node.maxLength !== undefined) s.maxLength = node.maxLength
      if (node.pattern !== undefined) s.pattern = node.pattern
      return s
    }
    case 'integer':
    case 'number': {
      const s = { type: node.t, ...base }
      if (node.min !== undefined) s.minimum = node.min
      if (node.max !== undefined) s.maximum = node.max
      return s
    }
    case 'boolean':
      return { type: 'boolean', ...base }
    case 'array': {
      const s = { type: 'array', items: json(node.items, defs, used), ...base }
      if (node.minItems !== undefined) s.minItems = node.minItems
      if (node.maxItems !== undefined) s.maxItems = node.maxItems
      return s
    }
    case 'object': {
      const properties = {}
      const required = []
      for (const [key, value] of Object.entries(node.props)) {
        properties[key] = json(value, defs, used)
        if (value.optional !== true) required.push(key)
      }
      return required.length === 0 ? { type: 'object', properties, ...base } : { type: 'object', properties, required, ...base }
    }
    default:
      throw new Error(`unknown node type ${node.t}`)
  }
}

/**
 * A zod schema of `node`, built with the zod module `z`. `shared` caches the definitions: each
 * is built once and the same zod object used wherever it is referenced.
 */
export function toZod (node, z, defs, shared = new Map()) {
  let schema
  switch (node.t) {
    case 'ref':
      if (!shared.has(node.name)) shared.set(node.name, toZod(defs[node.name], z, defs, shared))
      schema = shared.get(node.name)
      break
    case 'string':
      if (node.enum !== undefined) {
        schema = z.enum(node.enum)
      } else {
        schema = z.string()
        if (node.minLength !== undefined) schema = schema.min(node.minLength)
        if (node.maxLength !== undefined) schema = schema.max(node.maxLength)
        if (node.pattern !== undefined) schema = schema.regex(new RegExp(node.pattern))
      }
      break
    case 'integer':
    case 'number':
      schema = node.t === 'integer' ? z.number().int() : z.number()
      if (node.min !== undefined) schema = schema.min(node.min)
      if (node.max !== undefined) schema = schema.max(node.max)
      break
    case 'boolean':
      schema = z.boolean()
      break
    case 'array':
      schema = z.array(toZod(node.items, z, defs, shared))
      if (node.minItems !== undefined) schema = schema.min(node.minItems)
      if (node.maxItems !== undefined) schema = schema.max(node.maxItems)
      break
    case 'object':
      schema = z.object(zodShape(node, z, defs, shared))
      break
    default:
      throw new Error(`unknown node type ${node.t}`)
  }
  if (node.description !== undefined && node.t !== 'ref') schema = schema.describe(node.description)
  return node.optional === true ? schema.optional() : schema
}

/** The properties of an object node as a zod raw shape (`{ key: zodSchema }`). */
export function zodShape (node, z, defs, shared = new Map()) {
  const shape = {}
  for (const [key, value] of Object.entries(node.props)) shape[key] = toZod(value, z, defs, shared)
  return shape
}

/** A value valid against `node`: enums take their first member, arrays their minimum length (at least 2). */
export function sample (node, defs) {
  switch (node.t) {
    case 'ref':
      return sample(defs[node.name], defs)
    case 'string': {
      if (node.example !== undefined) return node.example
      if (node.enum !== undefined) return node.enum[0]
      const text = 'sample text for the benchmark'.slice(0, node.maxLength ?? 64)
      return text.padEnd(node.minLength ?? 0, 'x')
    }
    case 'integer':
      return node.min !== undefined ? Math.max(node.min, Math.min(node.max ?? 42, 42)) : 42
    case 'number':
      return node.min !== undefined ? Math.max(node.min, Math.min(node.max ?? 19.5, 19.5)) : 19.5
    case 'boolean':
      return true
    case 'array': {
      const count = Math.max(node.minItems ?? 0, Math.min(node.maxItems ?? 2, 2))
      return Array.from({ length: count }, () => sample(node.items, defs))
    }
    case 'object': {
      const value = {}
      for (const [key, child] of Object.entries(node.props)) value[key] = sample(child, defs)
      return value
    }
    default:
      throw new Error(`unknown node type ${node.t}`)
  }
}
