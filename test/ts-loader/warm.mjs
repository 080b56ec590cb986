// Fills the transpile cache for every .ts file of src/, test/ and examples/ in one process, before
// npm test starts its processes: a cold cache otherwise had each of them load the compiler for
// its own test file, and the first ones all transpile the same src/ side by side (~35 s of a cold
// run on 2 cores; this takes a few seconds).
import { readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { ROOT, transpiled } from './transpile.mjs'

const started = performance.now()
let files = 0
for (const folder of ['src', 'test', 'examples']) {
  const root = fileURLToPath(new URL(folder, ROOT))
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts') || entry.name.endsWith('.d.ts')) continue
    const file = `${entry.parentPath}/${entry.name}`
    try {
      transpiled(file)
      files++
    } catch (error) {
      // Not this step's to fail: the test that loads the file reports it, and so does typecheck.
      console.error(`ts-loader: ${error.message}`)
    }
  }
}
console.log(`ts-loader: ${files} files transpiled or found in the cache in ${Math.round(performance.now() - started)} ms`)
