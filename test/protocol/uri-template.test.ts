import t from 'tap'
import { compileUriTemplate, type StepMeter } from '../../src/protocol/uri-template.js'

// Issue 10, defect 1: templates compiled to backtracking regular expressions, so
// `db://{schema}.{table}` against `db://` + 100,000 dots took seconds. The matcher now
// works in two linear passes; these tests prove the work linear on the worst shapes and
// the matches identical to what the regular expression chose.

const MiB = 1024 * 1024

/** The old compilation, kept here as the reference for which split a match picks. */
function referenceMatch (template: string, uri: string): Record<string, string> | undefined {
  const names: string[] = []
  const reserved: boolean[] = []
  let pattern = '^'
  let last = 0
  for (const found of template.matchAll(/\{([+#]?)([A-Za-z0-9_.]+)\}/g)) {
    pattern += template.slice(last, found.index).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    names.push(found[2] as string)
    reserved.push(found[1] !== '')
    pattern += found[1] === '' ? '([^/?#]+)' : '(.+)'
    last = found.index + found[0].length
  }
  pattern += template.slice(last).replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '$'
  const found = new RegExp(pattern).exec(uri)
  if (found === null) return undefined
  const params: Record<string, string> = {}
  names.forEach((name, i) => {
    const raw = found[i + 1] as string
    let value = raw
    if (reserved[i] !== true) try { value = decodeURIComponent(raw) } catch {}
    params[name] = value
  })
  return params
}

const TEMPLATES = [
  'db://{schema}.{table}',
  'f://{name}.{ext}',
  'gh://{owner}-{repo}',
  'x://{a}{b}',
  'x://{a}{b}{c}',
  'x://{+path}/{name}',
  'x://{name}/{+rest}',
  'x://{+a}.{+b}.{+c}',
  'x://{a}aa{b}aab',
  'x://{#frag}',
  'x://{a}.{+b}?{c}',
  'docs://{section}/{page}.md',
  'x://fixed/{id}/data',
  'x://{a}-{b}-{c}-{d}'
]

t.test('the matcher picks the split the regular expression picked, on every short URI tried', async (t) => {
  // Deterministic pseudo-random URIs over the characters that matter: the literals' own
  // characters, the delimiters of a simple value and a percent escape.
  let seed = 42
  const random = (below: number): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed % below
  }
  const alphabet = ['a', 'b', '.', '-', '/', '?', '#', '%41', '%', 'md', 'data', 'fixed']
  let compared = 0
  let matched = 0
  for (const template of TEMPLATES) {
    const compiled = compileUriTemplate(template)
    const scheme = template.slice(0, template.indexOf('://') + 3)
    const fixed = template.startsWith('x://fixed/') ? 'x://fixed/' : scheme
    for (let i = 0; i < 3000; i++) {
      let uri = fixed
      const length = 1 + random(10)
      for (let k = 0; k < length; k++) uri += alphabet[random(alphabet.length)] as string
      if (template.endsWith('/data') && random(2) === 0) uri += '/data'
      if (template.endsWith('.md') && random(2) === 0) uri += '.md'
      const expected = referenceMatch(template, uri)
      const actual = compiled.match(uri)
      compared++
      if (expected !== undefined) matched++
      if (JSON.stringify(actual) !== JSON.stringify(expected)) {
        t.fail(`${template} on ${uri}`, { found: actual, wanted: expected })
        return
      }
    }
  }
  t.ok(matched > 2000, `${compared} URIs compared, ${matched} of them matched`)
  t.same(compileUriTemplate('gh://{owner}-{repo}').match('gh://my-org-repo'), { owner: 'my-org', repo: 'repo' }, 'the first variable takes the longest value')
  t.same(compileUriTemplate('x://{+path}/{name}').match('x://a/b/c'), { path: 'a/b', name: 'c' })
  t.same(compileUriTemplate('x://{name}/{+rest}').match('x://a/b/c'), { name: 'a', rest: 'b/c' }, 'a simple value stops at "/"')
  t.same(compileUriTemplate('x://{a}{b}').match('x://abc'), { a: 'ab', b: 'c' }, 'adjacent variables: each takes at least one character')
  t.same(compileUriTemplate('x://plain').match('x://plain'), {}, 'a template without variables matches itself only')
  t.equal(compileUriTemplate('x://plain').match('x://plainer'), undefined)
  t.equal(compileUriTemplate('x://{a}.b').match('y://z.b'), undefined, 'the prefix must match')
  t.equal(compileUriTemplate('x://{a}.b').match('x://.b'), undefined, 'a value is never empty')
})

interface Shape {
  template: string
  /** A URI of about `size` characters built to make a backtracking matcher try every split. */
  uri: (size: number) => string
  matches: boolean
}

const WORST: Shape[] = [
  { template: 'db://{schema}.{table}', uri: (n) => 'db://' + '.'.repeat(n) + '/', matches: false },
  { template: 'f://{name}.{ext}', uri: (n) => 'f://' + '.'.repeat(n) + '?', matches: false },
  { template: 'gh://{owner}-{repo}', uri: (n) => 'gh://' + '-'.repeat(n) + '#', matches: false },
  { template: 'x://{a}-{b}-{c}-{d}', uri: (n) => 'x://' + '-'.repeat(n) + '/', matches: false },
  { template: 'x://{a}{b}{c}', uri: (n) => 'x://' + 'a'.repeat(n) + '/', matches: false },
  { template: 'x://{+a}.{+b}.{+c}!', uri: (n) => 'x://' + '.'.repeat(n), matches: false },
  { template: 'x://{+path}/{name}', uri: (n) => 'x://' + '/'.repeat(n), matches: false },
  { template: 'x://{a}aa{b}aab', uri: (n) => 'x://' + 'a'.repeat(n) + 'c', matches: false },
  { template: 'db://{schema}.{table}', uri: (n) => 'db://' + 'a.'.repeat(n / 2) + 'b', matches: true },
  { template: 'x://{+a}.{+b}.{+c}', uri: (n) => 'x://' + '.'.repeat(n), matches: true },
  { template: 'x://{a}aa{b}aab', uri: (n) => 'x://' + 'a'.repeat(n) + 'b', matches: true }
]

t.test('the work grows linearly with the URI on the worst template shapes, up to 4 MiB', async (t) => {
  for (const shape of WORST) {
    const compiled = compileUriTemplate(shape.template)
    const counts: number[] = []
    for (const size of [MiB / 4, MiB, 4 * MiB]) {
      const meter: StepMeter = { steps: 0 }
      const uri = shape.uri(size)
      const found = compiled.match(uri, meter)
      t.equal(found !== undefined, shape.matches, `${shape.template}, ${uri.length} characters: ${shape.matches ? 'matches' : 'no match'}`)
      // Two passes per variable, each visiting a position at most once, plus the forward scans.
      t.ok(meter.steps <= 3 * compiled.variables.length * uri.length + 64,
        `${shape.template}: ${meter.steps} steps for ${uri.length} characters, at most ${3 * compiled.variables.length} per character`)
      counts.push(meter.steps)
    }
    const [small, medium, large] = counts as [number, number, number]
    t.ok(medium / small < 4.2 && large / medium < 4.2, `${shape.template}: 4x the URI, 4x the steps (${small}, ${medium}, ${large})`)
  }
})

t.test('the values found in a multi-megabyte URI are right', async (t) => {
  const table = compileUriTemplate('db://{schema}.{table}').match('db://' + 'a.'.repeat(MiB) + 'b')
  t.equal(table?.schema?.length, 2 * MiB - 1)
  t.equal(table?.table, 'b')
  const reserved = compileUriTemplate('x://{+a}.{+b}.{+c}').match('x://' + '.'.repeat(MiB))
  t.same([reserved?.a?.length, reserved?.b, reserved?.c], [MiB - 4, '.', '.'], 'earlier variables take the longest values')
})
