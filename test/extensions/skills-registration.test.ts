// A skill is read, checked and bounded when it is registered: a path or a link that leaves the
// skill's folder, a file past skills.maxFileBytes, too many files or bytes, a SKILL.md that is not
// what the Agent Skills specification asks for, all refused there with a coded error naming it.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import t, { type Test } from 'tap'
import { MCPServer } from '../../src/index.js'

const skillMd = (name: string, extra = ''): string => `---\nname: ${name}\ndescription: Does ${name} things\n${extra}---\nBody.\n`

function folder (t: Test, files: Record<string, string | Buffer>): string {
  const root = mkdtempSync(join(tmpdir(), 'mcp-skill-'))
  t.teardown(() => { rmSync(root, { recursive: true, force: true }) })
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), content)
  }
  return root
}

const INVALID = { code: 'FST_MCP_INVALID_DEFINITION' }

t.test('a path escaping the skill is refused: in memory', async (t) => {
  const server = new MCPServer()
  for (const path of ['../outside.md', 'a/../../outside.md', '/etc/passwd', 'a//b.md', './a.md', 'a\\..\\b.md', 'a/./b.md']) {
    t.throws(() => server.skill({ name: 'escape', files: { 'SKILL.md': skillMd('escape'), [path]: 'x' } }), {
      ...INVALID, message: /skill definition: escape: file path .* must be relative to the skill's root/
    }, `refused: ${path}`)
  }
})

t.test('a symbolic link out of the skill\'s folder is refused; one inside it is served', async (t) => {
  const outside = folder(t, { 'secret.txt': 'top secret' })
  const root = folder(t, { 'linked/SKILL.md': skillMd('linked'), 'linked/notes/a.md': 'a' })
  symlinkSync(join(outside, 'secret.txt'), join(root, 'linked', 'notes', 'leak.txt'))
  const server = new MCPServer()
  t.throws(() => server.skill({ dir: join(root, 'linked') }), { ...INVALID, message: /linked: notes\/leak\.txt links outside the skill's folder/ })

  rmSync(join(root, 'linked', 'notes', 'leak.txt'))
  symlinkSync(join(root, 'linked', 'notes', 'a.md'), join(root, 'linked', 'notes', 'alias.md'))
  server.skill({ dir: join(root, 'linked') })
  t.pass('a link to a file inside the folder is fine')

  const looped = folder(t, { 'loop/SKILL.md': skillMd('loop') })
  symlinkSync(join(looped, 'loop'), join(looped, 'loop', 'again'))
  t.throws(() => server.skill({ dir: join(looped, 'loop') }), { ...INVALID, message: /loop: again (is not a regular file|links outside)/ }, 'a link to a folder is not followed')
})

t.test('an oversize file, too many files, too many bytes: refused against the skills option', async (t) => {
  const server = new MCPServer({ skills: { maxFileBytes: 1024, maxEntries: 3, maxTotalBytes: 2000 } })
  t.throws(() => server.skill({ name: 'big', files: { 'SKILL.md': skillMd('big'), 'data.bin': Buffer.alloc(1025) } }), {
    ...INVALID, message: /big: data\.bin is 1025 bytes, over skills\.maxFileBytes \(1024\)/
  })
  const root = folder(t, { 'big/SKILL.md': skillMd('big'), 'big/assets/data.bin': Buffer.alloc(1025) })
  t.throws(() => server.skill({ dir: join(root, 'big') }), { ...INVALID, message: /assets\/data\.bin is 1025 bytes, over skills\.maxFileBytes/ }, 'from disk too')
  t.throws(() => server.skill({ name: 'many', files: { 'SKILL.md': skillMd('many'), a: '1', b: '2', c: '3' } }), { ...INVALID, message: /many: it holds more than 3 files \(skills\.maxEntries\)/ })
  t.throws(() => server.skill({ name: 'heavy', files: { 'SKILL.md': skillMd('heavy'), a: Buffer.alloc(1000), b: Buffer.alloc(1000) } }), {
    ...INVALID, message: /heavy: its files are over skills\.maxTotalBytes \(2000 bytes\) together/
  })
  server.skill({ name: 'fits', files: { 'SKILL.md': skillMd('fits'), a: Buffer.alloc(1000) } })
  t.pass('within the bounds')
})

t.test('the defaults are the SEP-2640 limits: 512 files, 16 MiB', async (t) => {
  const server = new MCPServer()
  const files: Record<string, string> = { 'SKILL.md': skillMd('wide') }
  for (let i = 0; i < 512; i++) files[`f/${i}.txt`] = 'x'
  t.throws(() => server.skill({ name: 'wide', files }), { ...INVALID, message: /more than 512 files/ })
  t.throws(() => server.skill({ name: 'huge', files: { 'SKILL.md': skillMd('huge'), 'a.bin': Buffer.alloc(16 * 1024 * 1024) } }), { ...INVALID, message: /over skills\.maxTotalBytes/ })
})

t.test('SKILL.md must be what the Agent Skills specification asks for', async (t) => {
  const server = new MCPServer()
  const cases: Array<[string, string, RegExp]> = [
    ['nofront', 'Just text.\n', /must begin with YAML frontmatter/],
    ['nodesc', '---\nname: nodesc\n---\n', /description must be 1-1024 characters/],
    ['longdesc', `---\nname: longdesc\ndescription: ${'x'.repeat(1025)}\n---\n`, /description must be 1-1024 characters/],
    ['badyaml', '---\nname: badyaml\ndescription: [unclosed\n---\n', /not valid YAML/],
    ['dupkey', '---\nname: dupkey\nname: dupkey\ndescription: d\n---\n', /not valid YAML/],
    ['list', '---\n- name\n- description\n---\n', /must be a YAML mapping/],
    ['meta', skillMd('meta', 'metadata:\n  version: 2\n'), /metadata must map keys to strings/],
    ['reserved', skillMd('reserved', 'metadata:\n  io.modelcontextprotocol/x: "y"\n'), /prefix reserved for MCP extensions/],
    ['compat', skillMd('compat', `compatibility: ${'c'.repeat(501)}\n`), /compatibility must be 1-500 characters/],
    ['inf', skillMd('inf', 'limit: .inf\n'), /values JSON cannot carry/]
  ]
  for (const [name, markdown, problem] of cases) {
    t.throws(() => server.skill({ name, files: { 'SKILL.md': markdown } }), { ...INVALID, message: problem }, name)
  }
  t.throws(() => server.skill({ name: 'Bad_Name', files: { 'SKILL.md': skillMd('Bad_Name') } }), { ...INVALID, message: /name must be 1-64 characters/ })
  t.throws(() => server.skill({ name: 'a--b', files: { 'SKILL.md': skillMd('a--b') } }), { ...INVALID, message: /name must be 1-64 characters/ })
  t.throws(() => server.skill({ name: 'other', files: { 'SKILL.md': skillMd('mine') } }), { ...INVALID, message: /names it "mine"; the name must be "other"/ })
  t.throws(() => server.skill({ name: 'none', files: { 'README.md': 'x' } }), { ...INVALID, message: /none: it has no SKILL\.md at its root/ })
  t.throws(() => server.skill({ name: 'binary', files: { 'SKILL.md': Buffer.from([0xff, 0xfe, 0x00]) } }), { ...INVALID, message: /SKILL\.md is not UTF-8 text/ })
  const root = folder(t, { 'folder-name/SKILL.md': skillMd('other-name') })
  t.throws(() => server.skill({ dir: join(root, 'folder-name') }), { ...INVALID, message: /names it "other-name"; the name must be "folder-name"/ }, 'a folder is named after its skill')
  t.throws(() => server.skill({ dir: join(root, 'missing') }), { ...INVALID, message: /is not a folder/ })
  t.throws(() => server.skill({} as never), { ...INVALID, message: /give \{ dir \} or \{ name, files \}/ })
})

t.test('duplicates are refused; skills() registers every skill folder or none', async (t) => {
  const server = new MCPServer()
  server.skill({ name: 'one', files: { 'SKILL.md': skillMd('one') } })
  t.throws(() => server.skill({ name: 'one', files: { 'SKILL.md': skillMd('one') } }), { code: 'FST_MCP_DUPLICATE_DEFINITION', message: /A skill named "one"/ })
  const parent = folder(t, { 'alpha/SKILL.md': skillMd('alpha'), 'beta/SKILL.md': skillMd('beta'), 'zeta/SKILL.md': skillMd('wrong'), 'not-a-skill/README.md': 'x', 'loose.txt': 'x' })
  t.throws(() => server.skills(parent), { ...INVALID, message: /zeta: its SKILL\.md names it "wrong"/ })
  // alpha and beta were rolled back with the failure: they register now without a duplicate.
  rmSync(join(parent, 'zeta'), { recursive: true })
  const all = server.skills(parent)
  all.remove()
  server.skills(parent)
  t.pass('registered, removed together, registered again')
  t.throws(() => server.skills(join(parent, 'nowhere')), { code: 'FST_MCP_INVALID_DEFINITION', message: /skills definition: .*nowhere is not a folder/ })
})

t.test('the skills option is validated with the others', async (t) => {
  t.throws(() => new MCPServer({ skills: { maxEntries: 0 } }), { code: 'FST_MCP_INVALID_OPTIONS', message: /skills\.maxEntries/ })
  t.throws(() => new MCPServer({ skills: { directoryread: true } as never }), { code: 'FST_MCP_INVALID_OPTIONS', message: /skills\.directoryread/ })
})

t.test('a skill whose file clashes with a resource is registered not at all', async (t) => {
  const server = new MCPServer()
  server.resource({ uri: 'skill://clash/notes.md', name: 'taken' }, (uri) => ({ contents: [{ uri, text: '' }] }))
  t.throws(() => server.skill({ name: 'clash', files: { 'SKILL.md': skillMd('clash'), 'notes.md': 'n' } }), { code: 'FST_MCP_DUPLICATE_DEFINITION', message: /skill:\/\/clash\/notes\.md/ })
  server.skill({ name: 'clash', files: { 'SKILL.md': skillMd('clash') } })
  t.pass('its SKILL.md was rolled back: the skill registers without the clashing file')
})
