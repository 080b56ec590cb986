import { KindGuard, Type, type TSchema } from '@sinclair/typebox'
import t from 'tap'
import { Defaulted, isDefaulted } from '../../src/schemas/engine/schema.js'
import { PluginOptionsSchema } from '../../src/schemas/plugin.js'
import { resolvePluginOptions, resolveServerOptions } from '../../src/schemas/resolve.js'
import { ServerOptionsSchema } from '../../src/schemas/server.js'

/** Every property schema reachable from `schema`, with its dotted path. */
function propertiesOf (schema: TSchema, path = ''): Array<[string, TSchema]> {
  if (KindGuard.IsObject(schema)) {
    return Object.entries(schema.properties).flatMap(([key, property]): Array<[string, TSchema]> => {
      const at = path === '' ? key : `${path}.${key}`
      return [[at, property], ...propertiesOf(property, at)]
    })
  }
  if (KindGuard.IsUnion(schema)) return schema.anyOf.flatMap((variant) => propertiesOf(variant, path))
  if (KindGuard.IsArray(schema)) return propertiesOf(schema.items, `${path}[]`)
  return []
}

t.test('an option has a default exactly when it is declared Defaulted (which puts it in the resolved type)', async (t) => {
  for (const [name, schema] of [['server', ServerOptionsSchema], ['plugin', PluginOptionsSchema]] as const) {
    const properties = propertiesOf(schema)
    const defaulted = properties.filter(([, property]) => isDefaulted(property)).map(([path]) => path)
    t.ok(defaulted.includes('requestState.ttlMs') && defaulted.includes('cache.scope'), `${name}: the walk reaches nested blocks`)
    t.ok(defaulted.some((path) => path.endsWith('auth.options.headerName')), `${name}: and the auth variants`)
    const drift = properties.filter(([, property]) => ('default' in property) !== isDefaulted(property)).map(([path]) => path)
    t.same(drift, [], `${name}: no default outside Defaulted, no Defaulted without a default`)
  }
  t.throws(() => Defaulted(Type.Integer({ minimum: 0 })), TypeError, 'Defaulted() refuses a schema without a default')
})

t.test('the resolved types hold what the schemas fill in: requestState and cache', async (t) => {
  // These annotations compile only while the resolved types have the keys (npm run typecheck).
  const requestState: { readonly ttlMs: number, readonly maxBytes: number } = resolveServerOptions({}).requestState
  const cache: { readonly ttlMs: number, readonly scope: 'public' | 'private' } = resolvePluginOptions({}).cache
  t.same([requestState.ttlMs, requestState.maxBytes, cache.ttlMs, cache.scope], [600_000, 65_536, 0, 'private'])
})
