import { Type, type Static } from '@sinclair/typebox'
import { isRecord } from '../util/is-record.js'
import type { Add, OptionsProblem } from './engine/problems.js'
import { strict } from './engine/schema.js'
import { httpRouteProperties, httpRules } from './http.js'
import { routesRules, RoutesOptionsSchema } from './routes.js'
import { inflightRules, protocolRules, serverProperties } from './server.js'

export const PluginOptionsSchema = Type.Object({
  ...serverProperties,
  ...httpRouteProperties,
  /** The app's own routes as MCP tools (docs/routes-as-tools.md). Unset = only routes with `config.mcp`. */
  routes: Type.Optional(RoutesOptionsSchema)
}, strict)
/** Options of `fastify.register(mcp, opts)`: the app owns the listener, so no `port`/`host`. */
export type PluginOptions = Static<typeof PluginOptionsSchema>

/** Fastify reads these from the register options itself; they are not ours to validate. */
export const FASTIFY_REGISTER_KEYS = ['prefix', 'logLevel', 'logSerializers']

/** Rules of `fastify.register(mcp, options)`. */
export function pluginRules (options: unknown): OptionsProblem[] {
  const problems: OptionsProblem[] = []
  const add: Add = (path, message) => { problems.push({ path, message }) }
  if (!isRecord(options)) return problems
  protocolRules(options, add)
  inflightRules(options, options.bodyLimit, 'bodyLimit', add)
  for (const key of ['port', 'host']) {
    if (key in options) {
      add(key, `not a plugin option: the Fastify app owns the listener; pass ${key} to app.listen({ ${key} })`)
    }
  }
  const timeouts: Record<string, string> = { requestReadTimeoutMs: 'Fastify({ requestTimeout })', headersTimeoutMs: 'Fastify({ http: { headersTimeout } })', trustProxy: 'Fastify({ trustProxy })' }
  for (const [key, where] of Object.entries(timeouts)) {
    if (key in options) add(key, `not a plugin option: the Fastify app owns the listener; set ${where} (see the README)`)
  }
  httpRules(options, '', add)
  problems.push(...routesRules(options))
  return problems
}
