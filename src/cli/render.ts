import { isRecord } from '../util/is-record.js'

/**
 * Plain-text views of what servers send: a JSON Schema as a list of parameters, content blocks as
 * lines, rows as aligned columns. No colour here: the caller styles what it prints.
 */

/** A schema's type in a few words: `string`, `integer`, `"a" | "b"`, `array of string`, `object`. */
export function typeOf (schema: unknown): string {
  if (!isRecord(schema)) return 'any'
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => JSON.stringify(value)).join(' | ')
  if (schema.const !== undefined) return JSON.stringify(schema.const)
  const union = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined
  if (union !== undefined) return union.map(typeOf).join(' | ')
  const type = Array.isArray(schema.type) ? schema.type.join(' | ') : typeof schema.type === 'string' ? schema.type : 'any'
  if (type === 'array' && schema.items !== undefined) return `array of ${typeOf(schema.items)}`
  return type
}

/** One line per property of an object schema: `name: type (required) · description`. */
export function parameterLines (schema: unknown): string[] {
  if (!isRecord(schema) || !isRecord(schema.properties)) return []
  const required = new Set(Array.isArray(schema.required) ? schema.required : [])
  return Object.entries(schema.properties).map(([name, property]) => {
    const notes = [required.has(name) ? 'required' : undefined, isRecord(property) && property.default !== undefined ? `default ${JSON.stringify(property.default)}` : undefined]
      .filter((note) => note !== undefined)
    const description = isRecord(property) && typeof property.description === 'string' ? ` · ${property.description}` : ''
    return `${name}: ${typeOf(property)}${notes.length > 0 ? ` (${notes.join(', ')})` : ''}${description}`
  })
}

/** A content block as lines of text: text as is, anything binary as a short description. */
export function contentLines (block: unknown): string[] {
  if (!isRecord(block)) return [JSON.stringify(block)]
  switch (block.type) {
    case 'text':
      return String(block.text).split('\n')
    case 'image':
    case 'audio':
      return [`[${block.type} ${String(block.mimeType)}, ${base64Bytes(block.data)} bytes]`]
    case 'resource_link':
      return [`[link ${String(block.uri)}${typeof block.name === 'string' ? ` · ${block.name}` : ''}]`]
    case 'resource': {
      const resource = isRecord(block.resource) ? block.resource : {}
      if (typeof resource.text === 'string') return [`[resource ${String(resource.uri)}]`, ...resource.text.split('\n')]
      return [`[resource ${String(resource.uri)}, ${base64Bytes(resource.blob)} bytes]`]
    }
    default:
      return [JSON.stringify(block)]
  }
}

function base64Bytes (data: unknown): number {
  return typeof data === 'string' ? Buffer.byteLength(data, 'base64') : 0
}

/** Rows as columns, each padded to the widest cell (the last column is never padded). */
export function columns (rows: ReadonlyArray<readonly string[]>, indent = '  '): string[] {
  const widths: number[] = []
  for (const row of rows) row.forEach((cell, i) => { widths[i] = Math.max(widths[i] ?? 0, [...cell].length) })
  return rows.map((row) => indent + row.map((cell, i) => i === row.length - 1 ? cell : cell + ' '.repeat((widths[i] ?? 0) - [...cell].length)).join('  ').trimEnd())
}

/** A value shown to a human: strings as is, anything else as JSON. */
export function shown (value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value)
}
