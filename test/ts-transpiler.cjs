'use strict'
// The TypeScript transpiler of tap's loader (ts-node, transpile-only), with its output kept on disk.
// ts-node transpiles every .ts file a process loads, in every process: each test file and each stdio
// child paid ~3 s of CPU for the same src/ again, most of npm test's time on 2 cores. This emits
// exactly what ts-node's own transpiler emits (it calls it), once per file content, compiler
// options and TypeScript version, and later processes read it from node_modules/.cache/. A file
// with diagnostics is never kept, so ts-node reports them every time.
// Wired in tsconfig.json ("ts-node": { "transpileOnly": true, "transpiler": ... }), read by tap's
// loader and by the stdio children that clients spawn with an environment of their own (the Python
// client, the SDK's): without tap's TS_NODE_TRANSPILE_ONLY those type-checked the whole program on
// start. Type checking is `npm run typecheck`'s job.
const { createHash } = require('node:crypto')
const { mkdirSync, readFileSync, renameSync, writeFileSync } = require('node:fs')
const { dirname, join } = require('node:path')

const CACHE = join(__dirname, '..', 'node_modules', '.cache', 'ts-transpile')
// The transpile function ts-node uses itself (not exported: reached by its path in the package).
const TS_NODE = dirname(require.resolve('@isaacs/ts-node-temp-fork-for-pr-2009'))
const { createTsTranspileModule } = require(join(TS_NODE, 'ts-transpile-module.js'))

/** @type {import('@isaacs/ts-node-temp-fork-for-pr-2009').TranspilerFactory} */
exports.create = ({ service, nodeModuleEmitKind }) => {
  const ts = service.projectLocalResolveHelper === undefined ? require('typescript') : require(service.projectLocalResolveHelper('typescript', true))
  const compilerOptions = service.config.options
  const format = nodeModuleEmitKind === 'nodeesm' ? 'module' : 'commonjs'
  const salt = JSON.stringify([ts.version, compilerOptions, nodeModuleEmitKind ?? null])
  let transpile
  return {
    transpile (code, { fileName }) {
      const key = createHash('sha256').update(salt).update('\0').update(fileName).update('\0').update(code).digest('hex')
      const path = join(CACHE, `${key}.json`)
      try {
        return JSON.parse(readFileSync(path, 'utf8'))
      } catch {}
      transpile ??= createTsTranspileModule(ts, { compilerOptions, reportDiagnostics: true })
      const result = transpile(code, { fileName }, format)
      if (result.diagnostics === undefined || result.diagnostics.length === 0) {
        // Written aside, then renamed: a process reading it meanwhile sees the whole file or none.
        mkdirSync(CACHE, { recursive: true })
        const temporary = `${path}.${process.pid}`
        writeFileSync(temporary, JSON.stringify({ outputText: result.outputText, sourceMapText: result.sourceMapText }))
        renameSync(temporary, path)
      }
      return result
    }
  }
}
