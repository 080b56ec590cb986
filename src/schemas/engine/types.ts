import type { Static, TArray, TObject, TOptional, TProperties, TSchema, TUnion } from '@sinclair/typebox'
import type { TDefaulted, TLive } from './schema.js'

/**
 * What the resolver returns for a schema, derived from it: deep-readonly, every property built
 * with `Defaulted` present, every `Live` object typed as the caller's object (never made readonly).
 * A default declared in a schema is therefore present in the type without being listed anywhere.
 */
export type Resolved<T extends TSchema> =
  T extends TLive<infer L> ? L
    : T extends TObject<infer P> ? ResolvedObject<P>
      : T extends TUnion<infer V> ? Resolved<V[number]>
        : T extends TArray<infer I> ? ReadonlyArray<Resolved<I>>
          : Static<T>

/** Required properties and defaulted ones are always there; the other optional ones may not be. */
type Present<S extends TSchema> = S extends TOptional<TSchema> ? (S extends TDefaulted<TSchema> ? true : false) : true

type ResolvedObject<P extends TProperties> = Flat<
  { readonly [K in keyof P as Present<P[K]> extends true ? K : never]: Resolved<P[K]> } &
  { readonly [K in keyof P as Present<P[K]> extends true ? never : K]?: Resolved<P[K]> }
>

/** One object type instead of an intersection, so that editors show the resolved options readably. */
type Flat<T> = { [K in keyof T]: T[K] } & {}
