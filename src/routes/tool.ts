import type { JsonSchema, ToolDefinition } from '../protocol/definitions.js'
import { mayForward } from '../protocol/http.js'
import type { RouteCandidate } from '../schemas/routes.js'
import { isRecord } from '../util/is-record.js'
import type { RouteToolConfig } from './config.js'
import { routeInput, WILDCARD_ARGUMENT, type RouteInput, type RouteParts } from './input.js'
import { annotationsOf, methodPathName, toToolName } from './naming.js'
import { parseRoutePath, type RoutePath } from './path.js'
import { Dereferencer, jsonSchemaOf, SchemaProblem, type SharedSchemas } from './schema.js'

/** A route (one of its methods) made into a tool definition, and how its arguments go back. */
export interface RouteTool {
  readonly definition: ToolDefinition
  readonly input: RouteInput
}

/** What building a tool needs besides the route: the scope's shared schemas, headers the caller gives. */
export interface BuildEnv {
  readonly shared: SharedSchemas
  /** Header names (lower case) that are no arguments: the credential's and `forwardHeaders`. */
  readonly callerHeaders: ReadonlySet<string>
}

/** Headers no argument may set: the body is JSON, and the credential is the caller's. */
const NO_ARGUMENT_HEADERS: ReadonlySet<string> = new Set(['authorization', 'cookie', 'content-type', 'accept-encoding'])

/** Builds the tool of `route` for `method`; throws {@link SchemaProblem} when its schemas cannot make one. */
export function buildRouteTool (route: RouteCandidate, method: string, config: Readonly<RouteToolConfig>, env: BuildEnv): RouteTool {
  const schema = isRecord(route.schema) ? route.schema : {}
  const path = parseRoutePath(route.url)
  const input = new Dereferencer(env.shared)
  const parts: RouteParts = {}
  const params = paramsSchema(path, schema.params, input)
  if (params !== undefined) parts.params = params
  const query = schema.querystring ?? schema.query
  if (query !== undefined) parts.query = input.resolve(jsonSchemaOf(query, 'schema.querystring'), 'schema.querystring')
  const body = bodySchema(schema.body, input)
  if (body !== undefined) parts.body = body
  const headers = headersSchema(schema.headers, input, env.callerHeaders)
  if (headers !== undefined) parts.headers = headers
  const routeIn = routeInput(parts, path, input.defs)

  const operationId = typeof schema.operationId === 'string' && schema.operationId !== '' ? schema.operationId : undefined
  const definition: ToolDefinition = {
    name: config.name ?? (operationId === undefined ? methodPathName(method, path.words) : toToolName(operationId)),
    description: config.description ?? text(schema.description) ?? text(schema.summary) ?? `${method} ${route.url}`,
    inputSchema: routeIn.schema
  }
  const title = config.title ?? text(schema.summary)
  if (title !== undefined) definition.title = title
  const output = outputSchema(schema.response, env.shared)
  if (output !== undefined) definition.outputSchema = output
  const annotations = annotationsOf(method, config.annotations)
  if (annotations !== undefined) definition.annotations = annotations
  if (config.auth !== undefined) definition.auth = config.auth
  if (config.rateLimit !== undefined) definition.rateLimit = config.rateLimit
  return { definition, input: routeIn }
}

function text (value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined
}

/**
 * Path parameters: the route's params schema when it has one, and every parameter of the path
 * besides (a string, as the router hands it over); all required but an optional last one. The
 * wildcard `*` is the argument `wildcard`.
 */
function paramsSchema (path: RoutePath, declared: unknown, input: Dereferencer): JsonSchema | undefined {
  const schema = declared === undefined ? undefined : input.resolve(jsonSchemaOf(declared, 'schema.params'), 'schema.params')
  if (path.params.length === 0 && schema === undefined) return undefined
  const given = isRecord(schema?.properties) ? schema.properties : {}
  const properties: Record<string, unknown> = {}
  for (const name of path.params) {
    const property = given[name] ?? (name === '*' ? { type: 'string', description: 'The rest of the path' } : { type: 'string' })
    properties[name === '*' ? WILDCARD_ARGUMENT : name] = property
  }
  for (const [name, property] of Object.entries(given)) if (!path.params.includes(name)) properties[name] = property
  const required = path.params.filter((name) => name !== path.optional).map((name) => name === '*' ? WILDCARD_ARGUMENT : name)
  const merged: JsonSchema = { ...schema, type: 'object', properties }
  if (required.length > 0) merged.required = required
  else delete merged.required
  return merged
}

/** The body's JSON Schema: `schema.body`, or its `application/json` entry when it lists content types. */
function bodySchema (declared: unknown, input: Dereferencer): JsonSchema | undefined {
  if (declared === undefined) return undefined
  if (isRecord(declared) && isRecord(declared.content)) {
    const json = jsonEntry(declared.content)
    if (json === undefined) {
      throw new SchemaProblem(`schema.body takes no JSON (content types: ${Object.keys(declared.content).join(', ')}); a tool's arguments are JSON`)
    }
    return input.resolve(jsonSchemaOf(json, 'schema.body'), 'schema.body')
  }
  return input.resolve(jsonSchemaOf(declared, 'schema.body'), 'schema.body')
}

/** The `schema` of an `application/json` (or `+json`) entry of a content map. */
function jsonEntry (content: Record<string, unknown>): unknown {
  for (const [type, entry] of Object.entries(content)) {
    const mime = type.split(';')[0]?.trim().toLowerCase() ?? ''
    if ((mime === 'application/json' || mime.endsWith('+json')) && isRecord(entry)) return entry.schema
  }
  return undefined
}

/**
 * Header arguments: the headers schema's properties, less those the caller provides (the
 * credential, `forwardHeaders`) or that are never the model's to set (framing, hop-by-hop,
 * `mcp-*`, content negotiation of the JSON body).
 */
function headersSchema (declared: unknown, input: Dereferencer, callerHeaders: ReadonlySet<string>): JsonSchema | undefined {
  if (declared === undefined) return undefined
  const schema = input.resolve(jsonSchemaOf(declared, 'schema.headers'), 'schema.headers')
  if (!isRecord(schema.properties)) return undefined
  const open = (name: string): boolean => {
    const lower = name.toLowerCase()
    return mayForward(lower) && !NO_ARGUMENT_HEADERS.has(lower) && !callerHeaders.has(lower)
  }
  const properties = Object.fromEntries(Object.entries(schema.properties).filter(([name]) => open(name)))
  if (Object.keys(properties).length === 0) return undefined
  const headers: JsonSchema = { ...schema, properties }
  const required = Array.isArray(schema.required) ? (schema.required as unknown[]).filter((name) => typeof name === 'string' && open(name)) : []
  if (required.length > 0) headers.required = required
  else delete headers.required
  // Requests carry many headers besides these: the tool takes only its own.
  headers.additionalProperties = false
  return headers
}

const NO_BODY_STATUSES: ReadonlySet<string> = new Set(['204', '205'])

/**
 * The 2xx response schemas as the tool's `outputSchema` (several: `anyOf`). None when a 2xx answer
 * may come without a JSON body (a 204 or 205 entry, or content types without JSON): the result
 * would then have no `structuredContent` to check.
 */
function outputSchema (response: unknown, shared: SharedSchemas): JsonSchema | undefined {
  if (!isRecord(response)) return undefined
  const output = new Dereferencer(shared)
  const schemas: JsonSchema[] = []
  for (const [code, entry] of Object.entries(response)) {
    if (!/^2(\d\d|xx)$/i.test(code)) continue
    if (NO_BODY_STATUSES.has(code)) return undefined
    const declared = isRecord(entry) && isRecord(entry.content) ? jsonEntry(entry.content) : entry
    if (declared === undefined) return undefined
    schemas.push(output.resolve(jsonSchemaOf(declared, `schema.response.${code}`), `schema.response.${code}`))
  }
  if (schemas.length === 0) return undefined
  const distinct = [...new Map(schemas.map((schema) => [JSON.stringify(schema), schema])).values()]
  const combined: JsonSchema = distinct.length === 1 ? distinct[0] as JsonSchema : { anyOf: distinct }
  return Object.keys(output.defs).length === 0 ? combined : { ...combined, $defs: output.defs }
}
