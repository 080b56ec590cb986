// Part of `npm run lint`: at most 3 source files over 300 lines (ESLint's max-lines holds every
// file under 400; this holds the few near it to a handful, so growth shows up as a choice).
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const LONG = 300
const ALLOWED = 3

function * sources (dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) yield * sources(path)
    else if (entry.name.endsWith('.ts')) yield path
  }
}

const long = []
for (const file of sources(join(ROOT, 'src'))) {
  const lines = readFileSync(file, 'utf8').split('\n').length - 1
  if (lines > LONG) long.push(`${relative(ROOT, file)} (${lines})`)
}
if (long.length > ALLOWED) {
  console.error(`${long.length} files in src/ are over ${LONG} lines (at most ${ALLOWED}): ${long.join(', ')}`)
  process.exit(1)
}
console.log(`file sizes: ${long.length} of at most ${ALLOWED} files over ${LONG} lines${long.length > 0 ? `: ${long.join(', ')}` : ''}`)
