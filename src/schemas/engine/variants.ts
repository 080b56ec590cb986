import { KindGuard, Type, type TObject, type TSchema } from '@sinclair/typebox'
import { isRecord } from '../../util/is-record.js'
import { describeValue } from './describe.js'
import { join, type OptionsProblem } from './problems.js'

// A raw TypeBox union error only says "expected union value". For `{ type, options }` unions we
// read `type` first and swap the union for the matching variant (Type.Unknown when there is
// none, after reporting it), so defaults and errors then come from that variant alone.

/** `schema` with every tagged union that `value` reaches replaced by the variant `value` names. */
export function chooseVariants (schema: TSchema, value: unknown, path: string, problems: OptionsProblem[]): TSchema {
  if (isTaggedUnion(schema)) {
    const actual = value === undefined ? (schema.default as unknown) : value
    if (actual === undefined) return schema
    const types = schema.anyOf.map((variant) => JSON.stringify(variant.properties.type.const)).join(', ')
    if (!isRecord(actual)) {
      problems.push({ path, message: `expected an object with a "type" of ${types}, got ${describeValue(actual, path)}` })
      return Type.Unknown()
    }
    const variant = schema.anyOf.find((v) => v.properties.type.const === actual.type)
    if (variant === undefined) {
      const got = actual.type === undefined ? 'it is missing' : `got ${describeValue(actual.type, join(path, 'type'))}`
      problems.push({ path: join(path, 'type'), message: `expected one of ${types}, ${got}` })
      return Type.Unknown()
    }
    const chosen = chooseVariants(variant, actual, path, problems)
    return 'default' in schema ? { ...chosen, default: schema.default } : chosen
  }
  if (KindGuard.IsObject(schema) && isRecord(value)) {
    const properties: Record<string, TSchema> = {}
    for (const [key, property] of Object.entries(schema.properties)) {
      properties[key] = chooseVariants(property, value[key], join(path, key), problems)
    }
    return { ...schema, properties }
  }
  return schema
}

type TaggedVariant = TObject<{ type: { const: unknown } & TSchema }>
function isTaggedUnion (schema: TSchema): schema is TSchema & { anyOf: TaggedVariant[] } {
  return KindGuard.IsUnion(schema) && schema.anyOf.every((v) => KindGuard.IsObject(v) && KindGuard.IsLiteral(v.properties.type))
}
