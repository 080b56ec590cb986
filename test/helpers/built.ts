// The guard of every test that runs dist/ (the instance processes of the rigs, the examples): it
// refuses a build older than src/. `npm test` and `npm run test:rigs` build first; a file run alone
// with `npx tap` after an edit of src/ would otherwise test the code of the last build, silently.
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const ENTRY = join(ROOT, 'dist', 'index.js')

/** The newest file under `dir`: its path and modification time. */
function newest (dir: string): { path: string, mtimeMs: number } {
  let found = { path: dir, mtimeMs: 0 }
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue
    const path = join(entry.parentPath, entry.name)
    const { mtimeMs } = statSync(path)
    if (mtimeMs > found.mtimeMs) found = { path, mtimeMs }
  }
  return found
}

/** Throws, naming the file to blame and the fix, unless dist/ was built after the last change to src/. */
export function ensureBuilt (): void {
  let built: number
  try {
    built = statSync(ENTRY).mtimeMs
  } catch {
    throw new Error('dist/ is missing: this test runs the built package. Run `npm run build` first.')
  }
  const changed = newest(join(ROOT, 'src'))
  if (changed.mtimeMs > built) {
    const name = changed.path.slice(ROOT.length)
    throw new Error(`dist/ is older than src/ (${name} changed after the last build): this test would run stale code. Run \`npm run build\` first.`)
  }
}
