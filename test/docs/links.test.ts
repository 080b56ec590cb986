// The README is the front door and docs/ holds one page per topic (issue 22): the README stays
// short, links every page, and no relative link or anchor in either points nowhere.
import { test } from 'tap'
import { readFileSync, readdirSync, existsSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
const README = join(ROOT, 'README.md')
const DOCS = join(ROOT, 'docs')
const PAGES = readdirSync(DOCS).filter((name) => name.endsWith('.md')).map((name) => join(DOCS, name))

/** Markdown text without fenced code blocks, whose brackets are code, not links. */
function prose (text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '')
}

/** Every inline link target `[text](target)` of a markdown file, external ones left out. */
function relativeLinks (file: string): string[] {
  const targets: string[] = []
  for (const match of prose(readFileSync(file, 'utf8')).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = match[1] ?? ''
    if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) targets.push(target)
  }
  return targets
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to dashes, repeats numbered. */
function anchorsOf (file: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  for (const line of prose(readFileSync(file, 'utf8')).split('\n')) {
    const heading = /^#{1,6}\s+(.*)$/.exec(line)
    if (heading === null) continue
    const slug = (heading[1] ?? '').trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-')
    const count = seen.get(slug) ?? 0
    seen.set(slug, count + 1)
    anchors.add(count === 0 ? slug : `${slug}-${count}`)
  }
  return anchors
}

test('the README is at most 400 lines', async (t) => {
  const lines = readFileSync(README, 'utf8').split('\n').length
  t.ok(lines <= 400, `README.md has ${lines} lines`)
})

test('the README links every topic page under docs/', async (t) => {
  const linked = new Set(relativeLinks(README).map((target) => resolve(ROOT, target.split('#')[0] ?? '')))
  for (const page of PAGES) t.ok(linked.has(page), `README.md links ${relative(ROOT, page)}`)
})

test('every relative link and anchor of the README and docs/ resolves', async (t) => {
  const broken: string[] = []
  for (const file of [README, ...PAGES]) {
    for (const target of relativeLinks(file)) {
      const [path = '', anchor] = target.split('#')
      const linked = path === '' ? file : resolve(dirname(file), decodeURIComponent(path))
      if (!existsSync(linked)) {
        broken.push(`${relative(ROOT, file)}: ${target} (no such file)`)
      } else if (anchor !== undefined && linked.endsWith('.md') && !anchorsOf(linked).has(anchor)) {
        broken.push(`${relative(ROOT, file)}: ${target} (no such heading)`)
      }
    }
  }
  t.same(broken, [], 'no broken link')
  t.ok(PAGES.length >= 10, `the topic pages are found (${PAGES.length})`)
})
