// The server side of most tests: a Fastify app with the MCP plugin, built the way a user builds
// one, closed at teardown. One place, so that every test's app is the same app.
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import type { Test } from 'tap'
import mcp, { type MCPPluginOptions } from '../../src/index.js'
import { registerCatalog } from '../fixtures/catalog.js'

export interface AppSetup {
  /** Fastify's own options (a logger, bodyLimit). `forceCloseConnections` is always on. */
  fastify?: FastifyServerOptions
  /** Runs before the plugin is registered: the app's own routes, hooks and plugins. */
  before?: (app: FastifyInstance) => void | Promise<void>
}

/** Runs after the plugin is registered, before the app is ready: the test's tools and resources. */
export type Register = (app: FastifyInstance) => void | Promise<void>

/** A ready app with the MCP plugin, not listening (for `inject`); closed at teardown. */
export async function mcpApp (t: Test, options: Partial<MCPPluginOptions> = {}, register?: Register, setup: AppSetup = {}): Promise<FastifyInstance> {
  // The SDK client's fetch (undici) may hold a spare socket that never carried a request; Node's
  // close() does not count it as idle and waits for the client's 4 s keep-alive timeout. Tests of
  // prompt shutdown use raw sockets instead.
  const app = Fastify({ ...setup.fastify, forceCloseConnections: true })
  t.teardown(async () => { await app.close() })
  await setup.before?.(app)
  await app.register(mcp, options)
  await register?.(app)
  await app.ready()
  return app
}

/** The same app, listening on a free loopback port. `base`: `http://127.0.0.1:port`. */
export async function serve (t: Test, options: Partial<MCPPluginOptions> = {}, register?: Register, setup: AppSetup = {}): Promise<{ app: FastifyInstance, base: string }> {
  const app = await mcpApp(t, options, register, setup)
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  return { app, base }
}

const withCatalog = (options: Partial<MCPPluginOptions>): Partial<MCPPluginOptions> => ({ name: 'catalog', version: '1.0.0', ...options })
const registerCatalogOn: Register = (app) => { registerCatalog(app.mcp) }

/** {@link mcpApp} serving the shared catalog (test/fixtures/catalog.ts), named `catalog` 1.0.0. */
export async function catalogApp (t: Test, options: Partial<MCPPluginOptions> = {}, setup: AppSetup = {}): Promise<FastifyInstance> {
  return await mcpApp(t, withCatalog(options), registerCatalogOn, setup)
}

/** {@link serve} serving the shared catalog. */
export async function listeningCatalogApp (t: Test, options: Partial<MCPPluginOptions> = {}, setup: AppSetup = {}): Promise<{ app: FastifyInstance, base: string }> {
  return await serve(t, withCatalog(options), registerCatalogOn, setup)
}
