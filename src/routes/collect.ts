import type { FastifyInstance, RouteOptions } from 'fastify'
import { RouteToolConfigError, RouteToolNameClashError, RouteToolSchemaError } from '../errors.js'
import type { ProtocolServer } from '../protocol/protocol-server.js'
import type { ResolvedPluginOptions } from '../schemas/resolve.js'
import type { RouteCandidate } from '../schemas/routes.js'
import { routeHandler } from './call.js'
import { readConfig, type ReadConfig } from './config.js'
import { SchemaProblem } from './schema.js'
import { selects, TOOL_METHODS } from './select.js'
import { buildRouteTool, type RouteTool } from './tool.js'

/** The `routes` option as resolved (deep-readonly). */
export type ResolvedRoutesOptions = NonNullable<ResolvedPluginOptions['routes']>

/** One method of one route, chosen to be a tool (or carrying a `config.mcp` to refuse). */
interface Chosen {
  readonly route: RouteCandidate
  readonly method: string
  /** The scope that declared it: its shared schemas are the ones its `$ref`s see. */
  readonly scope: FastifyInstance
  readonly config: ReadConfig | string
}

/**
 * Routes as tools, in two steps. While the app loads, the `onRoute` hook keeps the routes
 * selected (each method of a route on its own); a route with an invalid `config.mcp` is kept too,
 * to be refused. At `ready()`, when every route and every shared schema is known, each becomes a
 * tool of the registry, in declaration order; the first route that cannot is a coded error that
 * names it, and `ready()` rejects with it. The set is frozen from then on: Fastify takes no
 * routes after it is ready.
 */
export class RouteCollector {
  private readonly chosen: Chosen[] = []
  private readonly options: ResolvedRoutesOptions
  /** Header names (lower case) the caller provides: never arguments. */
  private readonly callerHeaders: ReadonlySet<string>

  constructor (options: ResolvedRoutesOptions | undefined, credentialHeader: string | undefined) {
    this.options = options ?? {}
    const names = (this.options.forwardHeaders ?? []).map((name) => name.toLowerCase())
    if (credentialHeader !== undefined) names.push(credentialHeader)
    this.callerHeaders = new Set(names)
  }

  /** Fastify's `onRoute` hook; `scope` is the instance the route was declared on (`this` there). */
  consider (route: RouteOptions, scope: FastifyInstance): void {
    const config = readConfig((route.config as { mcp?: unknown } | undefined)?.mcp)
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).map((method) => method.toUpperCase())
    for (const method of methods) {
      if (!TOOL_METHODS.has(method)) continue
      if (typeof config === 'string') {
        this.chosen.push({ route, method, scope, config })
        continue
      }
      const wanted = config.mark ?? selects(this.options.include, route, method)
      if (wanted && !selects(this.options.exclude, route, method)) this.chosen.push({ route, method, scope, config })
    }
  }

  /** How many routes were chosen so far. */
  get size (): number {
    return this.chosen.length
  }

  /** Registers every chosen route as a tool of `core`, calling it through `app.inject()`. */
  register (app: FastifyInstance, core: ProtocolServer): void {
    const byName = new Map<string, string>()
    const tools: Array<{ label: string, method: string, tool: RouteTool }> = []
    for (const { route, method, scope, config } of this.chosen) {
      const label = `${method} ${route.url}`
      if (typeof config === 'string') throw new RouteToolConfigError(label, config)
      let tool: RouteTool
      try {
        tool = buildRouteTool(route, method, config.config, { shared: scope.getSchemas(), callerHeaders: this.callerHeaders })
      } catch (error) {
        /* c8 ignore next: the builder throws SchemaProblem only */
        if (!(error instanceof SchemaProblem)) throw error
        throw new RouteToolSchemaError(label, error.message)
      }
      const name = tool.definition.name
      const other = byName.get(name)
      if (other !== undefined) throw new RouteToolNameClashError(other, label, name)
      byName.set(name, label)
      tools.push({ label, method, tool })
    }
    const forwardHeaders = this.options.forwardHeaders ?? []
    for (const { label, method, tool } of tools) {
      if (core.registry.tools.has(tool.definition.name)) throw new RouteToolNameClashError('a tool registered with app.mcp.tool()', label, tool.definition.name)
      try {
        core.tool(tool.definition, routeHandler(app, { method, input: tool.input, forwardHeaders }))
      } catch (error) {
        // The registry compiles the schemas: one no JSON Schema engine accepts fails there.
        throw new RouteToolSchemaError(label, error instanceof Error ? error.message : String(error))
      }
    }
  }
}
