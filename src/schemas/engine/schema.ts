import { Type, type TOptional, type TSchema, type TUnsafe } from '@sinclair/typebox'

// Two marks an option schema can carry besides shape, type and range: the resolver fills the option
// in (Defaulted), or passes the caller's object through untouched (Live). The marks are symbols, so
// the JSON Schema the package exports is the same with or without them, and the resolved types
// (types.ts) read them: no list of defaulted keys is kept by hand.

const DefaultedKind: unique symbol = Symbol('fastify-mcp-server.defaulted')
const LiveKind: unique symbol = Symbol('fastify-mcp-server.live')

/** Every object schema of the options: an unknown key is refused (with a "did you mean"). */
export const strict = { additionalProperties: false } as const
export const MiB = 1024 * 1024

/** An optional property the resolver fills in when it is left out. */
export type TDefaulted<T extends TSchema> = TOptional<T> & { readonly [DefaultedKind]: true }
/** A caller's live object: any value passes the schema; the resolver's `liveObject` checks it. */
export type TLive<T> = TUnsafe<T> & { readonly [LiveKind]: true }

/**
 * `Type.Optional(schema)` for a schema that carries its `default`: optional to the caller, always
 * present in the resolved options, and in their type. A schema without a default is a mistake in
 * this folder, refused as the module loads.
 */
export function Defaulted<T extends TSchema> (schema: T): TDefaulted<T> {
  if (!('default' in schema)) throw new TypeError('Defaulted() needs a schema with a default')
  return { ...Type.Optional(schema), [DefaultedKind]: true } as TDefaulted<T>
}

/** True when a property schema was built by {@link Defaulted}. */
export function isDefaulted (schema: TSchema): boolean {
  return (schema as Partial<TDefaulted<TSchema>>)[DefaultedKind] === true
}

/**
 * The one way to type a live object (a store, a client, an SDK provider) in a schema: `{}` in the
 * JSON Schema, `T` in the option types. See `liveObject` for how it is checked and passed through.
 */
export function Live<T> (): TLive<T> {
  return { ...Type.Unsafe<T>(Type.Any()), [LiveKind]: true }
}
