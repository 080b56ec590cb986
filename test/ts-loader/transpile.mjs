// TypeScript's own transpileModule (types are erased, nothing is checked: that is `npm run
// typecheck`'s job), its output kept on disk so that each file is transpiled once, not once per
// process: a test process then reads what it loads and never loads the compiler at all.
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

export const ROOT = new URL('../../', import.meta.url)
const CACHE = fileURLToPath(new URL('node_modules/.cache/ts-loader/', ROOT))
const require = createRequire(import.meta.url)

// The project's compiler options, less what only the build needs. Modules are emitted as ES
// modules (the package is "type": "module"); the source map goes inline, where coverage and stack
// traces find it.
const { compilerOptions: project } = JSON.parse(readFileSync(new URL('tsconfig.json', ROOT), 'utf8'))
const { outDir, rootDir, declaration, sourceMap, ...kept } = project
const COMPILER_OPTIONS = { ...kept, module: 'ESNext', moduleResolution: 'Bundler', inlineSourceMap: true }
// The key covers the compiler and its options: an upgrade or a tsconfig change misses the cache.
const TS_VERSION = JSON.parse(readFileSync(require.resolve('typescript/package.json'), 'utf8')).version
const SALT = JSON.stringify([TS_VERSION, COMPILER_OPTIONS])

let typescript

/** The JavaScript of one .ts file, from the cache or transpiled now (and kept). */
export function transpiled (file) {
  const code = readFileSync(file, 'utf8')
  const key = createHash('sha256').update(SALT).update('\0').update(file).update('\0').update(code).digest('hex')
  const cached = `${CACHE}${key}.js`
  try {
    return readFileSync(cached, 'utf8')
  } catch {}
  typescript ??= require('typescript')
  const { outputText, diagnostics } = typescript.transpileModule(code, { fileName: file, compilerOptions: COMPILER_OPTIONS, reportDiagnostics: true })
  // A file that does not parse is never kept, so that its errors are reported every time.
  if (diagnostics.length > 0) throw new SyntaxError(describe(file, diagnostics))
  // Written aside, then renamed: a process reading it meanwhile sees the whole file or none.
  mkdirSync(CACHE, { recursive: true })
  const aside = `${cached}.${process.pid}`
  writeFileSync(aside, outputText)
  renameSync(aside, cached)
  return outputText
}

function describe (file, diagnostics) {
  return diagnostics.map((diagnostic) => {
    const line = diagnostic.start === undefined ? '' : `:${diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line + 1}`
    return `${file}${line}: ${typescript.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`
  }).join('\n')
}
