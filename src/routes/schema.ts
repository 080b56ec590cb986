import type { JsonSchema } from '../protocol/definitions.js'
import { isRecord } from '../util/is-record.js'

/** Why a route's schema cannot become a tool schema; the caller names the route. */
export class SchemaProblem extends Error {}

/** Shared schemas by `$id`, as `instance.getSchemas()` gives them (`app.addSchema`). */
export type SharedSchemas = Readonly<Record<string, unknown>>

const kFluentSchema = Symbol.for('fluent-schema-object')

/**
 * The JSON Schema behind a route schema: a fluent-json-schema builder gives its JSON (as Fastify
 * does); anything else must already be plain JSON data. A Zod, Joi or Yup object (for a
 * `validatorCompiler` of another schema language) is refused: it is no JSON Schema, and nothing
 * could say what the tool's arguments are.
 */
export function jsonSchemaOf (schema: unknown, where: string): JsonSchema {
  let value = schema
  if (isRecord(value) && (value.isFluentSchema === true || value.isFluentJSONSchema === true || (value as Record<symbol, unknown>)[kFluentSchema] !== undefined) && typeof value.valueOf === 'function') {
    value = value.valueOf()
  }
  if (!isRecord(value) || Object.getPrototypeOf(value) !== Object.prototype) {
    throw new SchemaProblem(`${where} is not a JSON Schema object (${describeForeign(value)}); give the route JSON Schemas (TypeBox, fluent-json-schema or plain objects), or set config.mcp: false`)
  }
  requirePlainJson(value, where)
  return value
}

function describeForeign (value: unknown): string {
  if (typeof value !== 'object' || value === null) return `got ${value === null ? 'null' : typeof value}`
  const name = Object.getPrototypeOf(value)?.constructor?.name
  return typeof name === 'string' && name !== '' ? `an instance of ${name}, as a validatorCompiler of another schema language takes` : 'an object without a plain prototype'
}

function requirePlainJson (value: unknown, where: string, depth = 0): void {
  if (depth > 64) throw new SchemaProblem(`${where} is nested more than 64 levels deep`)
  if (Array.isArray(value)) {
    for (const item of value) requirePlainJson(item, where, depth + 1)
    return
  }
  if (typeof value === 'function' || typeof value === 'bigint' || typeof value === 'symbol') {
    throw new SchemaProblem(`${where} holds a ${typeof value}: not a JSON Schema (another schema language?); give the route JSON Schemas, or set config.mcp: false`)
  }
  if (typeof value !== 'object' || value === null) return
  if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) {
    throw new SchemaProblem(`${where} holds ${describeForeign(value)}: not a JSON Schema; give the route JSON Schemas, or set config.mcp: false`)
  }
  for (const child of Object.values(value)) requirePlainJson(child, where, depth + 1)
}

interface Document {
  /** The schema `#` refers to. */
  readonly root: unknown
  /** Its `$id` (a shared schema's), the base of relative references; empty for a route's own schema. */
  readonly id: string
  /** Names it among the documents of one route: its `$id`, or where the route has it (`schema.body`). */
  readonly key: string
}

/**
 * Resolves every `$ref` of a route's schemas: to the route schema itself (`#/definitions/x`) and to
 * the shared schemas (`user#`, `user#/properties/name`, `http://example.com/user.json`, relative
 * to the referring schema's `$id`), inlining each target, so that clients (and models) get one
 * self-contained schema. A recursive schema cannot be inlined: its recursive part goes under
 * `$defs` of the tool schema ({@link Dereferencer.defs}), referred to as `#/$defs/<name>`.
 * Nested `$id` and `$schema` are dropped, and `definitions` / `$defs` once inlined.
 */
export class Dereferencer {
  /** The recursive schemas met, by their `$defs` name: the tool schema carries them. */
  readonly defs: Record<string, JsonSchema> = {}
  private readonly shared: SharedSchemas
  private readonly stack: string[] = []
  private readonly recursive = new Map<string, string>()

  constructor (shared: SharedSchemas) {
    this.shared = shared
  }

  /** `schema` (a route's own, the document of its local references) with every reference resolved. */
  resolve (schema: JsonSchema, where: string): JsonSchema {
    const id = typeof schema.$id === 'string' ? schema.$id : ''
    return this.walk(schema, { root: schema, id, key: id === '' ? where : id }, where) as JsonSchema
  }

  private walk (node: unknown, document: Document, where: string): unknown {
    if (Array.isArray(node)) return node.map((item) => this.walk(item, document, where))
    if (!isRecord(node)) return node
    if (typeof node.$ref === 'string') return this.follow(node, document, where)
    const copy: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(node)) {
      // Annotation maps and value lists hold no schemas to walk.
      if (key === '$id' || key === '$schema' || key === 'definitions' || key === '$defs') continue
      copy[key] = SCHEMA_MAPS.has(key)
        ? mapValues(value, (child) => this.walk(child, document, where))
        : VALUE_KEYWORDS.has(key) ? value : this.walk(value, document, where)
    }
    return copy
  }

  private follow (node: Record<string, unknown>, document: Document, where: string): unknown {
    const { $ref: ref, ...siblings } = node
    const target = this.locate(ref as string, document, where)
    const key = `${target.document.key}#${target.pointer}`
    const known = this.recursive.get(key)
    if (this.stack.includes(key) || (known !== undefined && this.defs[known] !== undefined)) {
      return this.withSiblings({ $ref: `#/$defs/${this.defName(key)}` }, siblings, document, where)
    }
    this.stack.push(key)
    const expanded = this.walk(target.schema, target.document, where)
    this.stack.pop()
    let resolved: unknown = expanded
    const name = this.recursive.get(key)
    if (name !== undefined) {
      this.defs[name] = expanded as JsonSchema
      resolved = { $ref: `#/$defs/${name}` }
    }
    return this.withSiblings(resolved, siblings, document, where)
  }

  private withSiblings (resolved: unknown, siblings: Record<string, unknown>, document: Document, where: string): unknown {
    const rest = this.walk(siblings, document, where) as Record<string, unknown>
    if (Object.keys(rest).length === 0) return resolved
    // Beside a $ref, annotations (a property's own description) win; other keywords apply too.
    return Object.keys(rest).every((keyword) => ANNOTATIONS.has(keyword)) && isRecord(resolved) && resolved.$ref === undefined
      ? { ...resolved, ...rest }
      : { ...rest, allOf: [resolved] }
  }

  private defName (key: string): string {
    const known = this.recursive.get(key)
    if (known !== undefined) return known
    const base = key.replace(/[^A-Za-z0-9_.-]+/g, '_').replace(/^_+|_+$/g, '') || 'schema'
    const taken = new Set(this.recursive.values())
    let name = base
    for (let i = 2; taken.has(name); i++) name = `${base}_${i}`
    this.recursive.set(key, name)
    return name
  }

  private locate (ref: string, document: Document, where: string): { schema: unknown, document: Document, pointer: string } {
    const hash = ref.indexOf('#')
    const base = hash === -1 ? ref : ref.slice(0, hash)
    const fragment = hash === -1 ? '' : ref.slice(hash + 1)
    if (fragment !== '' && !fragment.startsWith('/')) {
      throw new SchemaProblem(`${where}: $ref ${JSON.stringify(ref)} names an anchor; only JSON pointers (#/...) and schema ids are supported`)
    }
    const target = base === '' ? document : this.sharedDocument(base, document, ref, where)
    return { schema: pointerInto(target.root, fragment, ref, where), document: target, pointer: fragment }
  }

  private sharedDocument (base: string, from: Document, ref: string, where: string): Document {
    const candidates = [base]
    if (from.id !== '') {
      try {
        candidates.push(new URL(base, from.id).href)
      } catch {}
    }
    for (const id of candidates) {
      const schema = Object.hasOwn(this.shared, id) ? this.shared[id] : undefined
      if (schema !== undefined) return { root: jsonSchemaOf(schema, `shared schema ${JSON.stringify(id)}`), id, key: id }
    }
    throw new SchemaProblem(`${where}: $ref ${JSON.stringify(ref)} names no schema added with app.addSchema() in the route's scope`)
  }
}

function pointerInto (root: unknown, fragment: string, ref: string, where: string): unknown {
  let node = root
  for (const raw of fragment.split('/').slice(1)) {
    const key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~')
    node = isRecord(node) && Object.hasOwn(node, key) ? node[key] : Array.isArray(node) ? node[Number(key)] : undefined
    if (node === undefined) throw new SchemaProblem(`${where}: $ref ${JSON.stringify(ref)} points at nothing`)
  }
  return node
}

function mapValues (value: unknown, map: (child: unknown) => unknown): unknown {
  if (!isRecord(value)) return value
  return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, map(child)]))
}

/** Keywords whose values map names (of properties, patterns) to schemas: the names are no keywords. */
const SCHEMA_MAPS: ReadonlySet<string> = new Set(['properties', 'patternProperties', 'dependentSchemas', 'dependencies', 'dependentRequired'])
/** Keywords whose values are data, not schemas: a `$ref` key inside `examples` is no reference. */
const VALUE_KEYWORDS: ReadonlySet<string> = new Set(['enum', 'const', 'default', 'examples', 'example', 'required'])
/** Keywords that only describe; beside a `$ref` they refine the target instead of constraining it. */
const ANNOTATIONS: ReadonlySet<string> = new Set(['title', 'description', 'default', 'examples', 'example', 'deprecated', 'readOnly', 'writeOnly'])
