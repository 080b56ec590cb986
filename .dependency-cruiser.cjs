// The layer rule of DESIGN.md ("Arrows"), checked by `npm run lint` rather than by review.
// Arrows run one way: entry points -> transports -> scale -> protocol -> telemetry -> jsonrpc,
// util, errors; beside that chain transports -> auth -> protocol, entry points -> extensions ->
// protocol, and entry points -> routes -> protocol (Fastify routes as tools: the plugin wires them,
// no transport knows them). Only the entry points (and the one mount, which the entry points share)
// import values of schemas/; transports and auth import its resolved types. No circular imports,
// type-only ones included. Above the entry points sit the tools, each a package entry of its own:
// testing/ (`fastify-mcp-server/testing`) and cli/ (the `bin`), which may use anything below them
// (the CLI the testing client too); nothing in src imports them, so the main entry never loads them.
const ENTRY = '^src/(index|plugin|server)\\.ts$'
const TOOLS = '^src/(testing|cli)/'
const MOUNT = '^src/transports/http/mount\\.ts$'

/** A folder (or root file) that may import only what `allowed` matches inside src/. */
function layer (name, from, allowed) {
  return {
    name: `layer-${name}`,
    comment: `${name} imports only ${allowed}`,
    severity: 'error',
    from: { path: from },
    to: { path: '^src/', pathNot: allowed }
  }
}

const LEAVES = '^src/(jsonrpc|util)/|^src/errors\\.ts$'

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'no import cycle, type-only imports included: each one blocks moving a file apart',
      severity: 'error',
      from: {},
      to: { circular: true }
    },
    layer('util', '^src/util/', '^src/util/'),
    layer('jsonrpc', '^src/jsonrpc/', '^src/(jsonrpc|util)/'),
    layer('errors', '^src/errors\\.ts$', '^src/util/'),
    layer('telemetry', '^src/telemetry/', `^src/telemetry/|${LEAVES}`),
    layer('protocol', '^src/protocol/', `^src/(protocol|telemetry)/|${LEAVES}`),
    // Per-operation authorization (rules, list filtering, the gate, middleware) is transport-free and
    // needs no spans: the rest of protocol/ and the leaves only. HTTP statuses are the transports' own.
    layer('protocol-authz', '^src/protocol/authz/', `^src/protocol/|${LEAVES}`),
    // MCP Apps and Skills sit beside the protocol, on top of it; only the entry points wire them in.
    layer('extensions', '^src/extensions/', `^src/(extensions|protocol|telemetry)/|${LEAVES}`),
    layer('auth', '^src/auth/', `^src/(auth|protocol|telemetry|schemas)/|${LEAVES}`),
    layer('scale', '^src/scale/', `^src/(scale|protocol|telemetry)/|${LEAVES}`),
    layer('routes', '^src/routes/', `^src/(routes|protocol|telemetry|schemas)/|${LEAVES}`),
    layer('transports', '^src/transports/', `^src/(transports|scale|auth|protocol|telemetry|schemas)/|${LEAVES}`),
    layer('schemas', '^src/schemas/', '^src/(?!index|plugin|server|testing/|cli/)'),
    layer('testing', '^src/testing/', '^src/(?!cli/)'),
    {
      name: 'tools-above-everything',
      comment: 'testing/ and cli/ are entries of their own: nothing else in src imports them (the main entry must not load them)',
      severity: 'error',
      from: { path: '^src/', pathNot: TOOLS },
      to: { path: TOOLS }
    },
    {
      name: 'schemas-values-from-entry-points-only',
      comment: 'options are resolved once, by the entry points; below them only the Resolved* types travel',
      severity: 'error',
      from: { path: '^src/', pathNot: [ENTRY, MOUNT, '^src/schemas/', TOOLS] },
      to: { path: '^src/schemas/', dependencyTypesNot: ['type-only', 'type-import'] }
    }
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^src/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.build.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.js'] },
    moduleSystems: ['es6']
  }
}
