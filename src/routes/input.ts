import type { JsonSchema } from '../protocol/definitions.js'
import { isRecord } from '../util/is-record.js'
import type { RoutePath } from './path.js'

/** Where an argument goes in the request. */
export type Part = 'params' | 'query' | 'body' | 'headers'

/** A route's request schemas, references resolved; absent parts take nothing. */
export type RouteParts = Partial<Record<Part, JsonSchema>>

/** One call's arguments, put back where the route reads them. */
export interface Placed {
  readonly path: string
  /** Undefined when there is no query string. */
  readonly query: Record<string, string | string[]> | undefined
  /** A fresh object per call: the caller may add to it. */
  readonly headers: Record<string, string>
  /** Undefined when the route takes no body. */
  readonly body: unknown
}

/** The tool's side of a route's request: its `inputSchema`, and how arguments go back. */
export interface RouteInput {
  readonly schema: JsonSchema
  /** Whether arguments are grouped as `{ params, query, body, headers }` (names clash) or flat. */
  readonly nested: boolean
  place: (args: Readonly<Record<string, unknown>>) => Placed
}

/** The wildcard's argument name: `*` is a poor name for a model to fill in. */
export const WILDCARD_ARGUMENT = 'wildcard'
const ORDER: readonly Part[] = ['params', 'query', 'body', 'headers']

/**
 * One object schema from the route's params, querystring, body and headers. Flat when every part
 * is an object schema with plain `properties` and no name appears in two parts: the arguments are
 * the route's own names (`{ id, limit, title }`). Otherwise nested, for the whole tool:
 * `{ params, query, body, headers }`, each the route's schema as it is (a body that is an array,
 * a `oneOf`, a recursive `$ref` needs no flattening there). Extra arguments of a flat tool go to
 * the body (else the query string) when its schema allows them; a nested tool allows none.
 */
export function routeInput (parts: RouteParts, path: RoutePath, defs: Readonly<Record<string, JsonSchema>>): RouteInput {
  const present = ORDER.filter((part) => parts[part] !== undefined)
  const owners = new Map<string, Part>()
  let flat = present.every((part) => isFlat(parts[part] as JsonSchema))
  for (const part of present) {
    for (const name of Object.keys((parts[part] as JsonSchema).properties ?? {})) {
      if (owners.has(name)) flat = false
      owners.set(name, part)
    }
  }
  const withDefs = (schema: JsonSchema): JsonSchema => Object.keys(defs).length === 0 ? schema : { ...schema, $defs: defs }
  if (flat) {
    const extras: Part | undefined = parts.body !== undefined ? 'body' : parts.query !== undefined ? 'query' : undefined
    const schema = withDefs(flatSchema(parts, present, extras))
    return { schema, nested: false, place: (args) => place(path, parts, flatGroups(args, owners, extras)) }
  }
  const schema = withDefs(nestedSchema(parts, present))
  return { schema, nested: true, place: (args) => place(path, parts, args as Partial<Record<Part, unknown>>) }
}

function isFlat (schema: JsonSchema): boolean {
  if (schema.type !== undefined && schema.type !== 'object') return false
  if (schema.properties !== undefined && !isRecord(schema.properties)) return false
  return !['$ref', 'allOf', 'anyOf', 'oneOf', 'not', 'if', 'patternProperties', 'dependentSchemas', 'dependencies'].some((keyword) => keyword in schema)
}

function flatSchema (parts: RouteParts, present: readonly Part[], extras: Part | undefined): JsonSchema {
  const properties: Record<string, unknown> = {}
  const required: string[] = []
  for (const part of present) {
    const schema = parts[part] as JsonSchema
    Object.assign(properties, schema.properties)
    if (Array.isArray(schema.required)) required.push(...schema.required as string[])
  }
  const schema: JsonSchema = { type: 'object', properties }
  if (required.length > 0) schema.required = [...new Set(required)]
  const additional = extras === undefined ? false : (parts[extras] as JsonSchema).additionalProperties
  if (additional !== undefined) schema.additionalProperties = additional
  return schema
}

function nestedSchema (parts: RouteParts, present: readonly Part[]): JsonSchema {
  const properties: Record<string, unknown> = {}
  const required: string[] = []
  for (const part of present) {
    const schema = parts[part] as JsonSchema
    properties[part] = schema
    // Fastify refuses a request without the body its schema describes.
    if (part === 'body' || (Array.isArray(schema.required) && schema.required.length > 0)) required.push(part)
  }
  const schema: JsonSchema = { type: 'object', properties, additionalProperties: false }
  if (required.length > 0) schema.required = required
  return schema
}

function flatGroups (args: Readonly<Record<string, unknown>>, owners: ReadonlyMap<string, Part>, extras: Part | undefined): Partial<Record<Part, Record<string, unknown>>> {
  const groups: Partial<Record<Part, Record<string, unknown>>> = {}
  for (const [name, value] of Object.entries(args)) {
    const part = owners.get(name) ?? extras
    if (value === undefined) continue
    if (part === undefined) continue
    (groups[part] ??= {})[name] = value
  }
  return groups
}

function place (path: RoutePath, parts: RouteParts, groups: Partial<Record<Part, unknown>>): Placed {
  const params = isRecord(groups.params) ? groups.params : {}
  const values = WILDCARD_ARGUMENT in params ? { ...params, '*': params[WILDCARD_ARGUMENT] } : params
  let query: Record<string, string | string[]> | undefined
  if (isRecord(groups.query)) {
    for (const [name, value] of Object.entries(groups.query)) {
      if (value !== undefined) (query ??= {})[name] = Array.isArray(value) ? value.map(queryValue) : queryValue(value)
    }
  }
  const headers: Record<string, string> = {}
  if (isRecord(groups.headers)) {
    for (const [name, value] of Object.entries(groups.headers)) {
      if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.map(queryValue).join(', ') : queryValue(value)
    }
  }
  // A flat tool called without body arguments still sends the (empty) object the route expects.
  const body = parts.body === undefined ? undefined : groups.body ?? {}
  return { path: path.build(values), query, headers, body }
}

/** Query strings and headers carry text: numbers and booleans as JSON writes them, objects as JSON. */
function queryValue (value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value) ?? ''
}
