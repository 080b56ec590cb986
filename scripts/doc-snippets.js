// The TypeScript code blocks of README.md and docs/*.md, for the consumer project of
// scripts/package-test.js to compile against the packed package: documentation that does not
// compile is a bug like any other. A block fenced as ```ts partial (or ```typescript partial) is an
// intentional fragment and is skipped; it is still counted, so a skip is never silent. A block
// fenced as ```ts run is a complete node:test file: it is compiled, then run.
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'

const FENCE = /^```(ts|typescript)(?:[ \t]+(.*))?$/

/** Every ts block of the project's documentation: `{ file, line, code, partial, run }`. */
export function docSnippets (root) {
  const files = ['README.md', ...readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md')).sort().map((name) => join('docs', name))]
  const snippets = []
  for (const file of files) {
    const lines = readFileSync(join(root, file), 'utf8').split('\n')
    for (let i = 0; i < lines.length; i++) {
      const open = FENCE.exec(lines[i].trimEnd())
      if (open === null) continue
      const end = lines.findIndex((line, j) => j > i && line.trimEnd() === '```')
      if (end === -1) throw new Error(`${file}:${i + 1}: unterminated code block`)
      const words = (open[2] ?? '').split(/\s+/)
      snippets.push({ file: relative(root, join(root, file)), line: i + 1, code: lines.slice(i + 1, end).join('\n'), partial: words.includes('partial'), run: words.includes('run') })
      i = end
    }
  }
  return snippets
}
