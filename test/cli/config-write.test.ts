// config --write into a temporary home (HOME, XDG_CONFIG_HOME unset): merged with a backup,
// other servers and settings kept; a malformed file refused with a clear message and left byte
// for byte as it was.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { DEMO, runCli } from '../helpers/cli.js'

/** A fresh home and project folder; the CLI runs with them. */
function place (t: Test): { home: string, project: string, env: NodeJS.ProcessEnv } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-cli-config-')))
  t.teardown(() => { rmSync(root, { recursive: true, force: true }) })
  const home = join(root, 'home')
  const project = join(root, 'project')
  mkdirSync(home)
  mkdirSync(project)
  return { home, project, env: { HOME: home, XDG_CONFIG_HOME: '', APPDATA: '' } }
}

const claudeDesktop = (home: string): string => join(home, '.config', 'Claude', 'claude_desktop_config.json')

t.test('--write merges after a backup: other servers and settings kept', async (t) => {
  const { env, home, project } = place(t)
  const file = claudeDesktop(home)
  mkdirSync(join(home, '.config', 'Claude'), { recursive: true })
  const before = JSON.stringify({ globalShortcut: 'Ctrl+Space', mcpServers: { other: { command: 'other-server' } } }, null, 4)
  writeFileSync(file, before)
  const run = await runCli(['config', 'claude-desktop', DEMO, '--name', 'demo', '--write'], { env, cwd: project })
  t.equal(run.code, 0, run.stderr)
  t.match(run.stderr, /Claude Desktop: "demo" added to .*claude_desktop_config\.json \(backup: .*claude_desktop_config\.json\.[0-9T-]+Z\.bak\)/)
  t.same(JSON.parse(readFileSync(file, 'utf8')), {
    globalShortcut: 'Ctrl+Space',
    mcpServers: { other: { command: 'other-server' }, demo: { command: 'node', args: [DEMO] } }
  })
  const backups = readdirSync(join(home, '.config', 'Claude')).filter((name) => name.endsWith('.bak'))
  t.equal(backups.length, 1)
  t.equal(readFileSync(join(home, '.config', 'Claude', backups[0] ?? ''), 'utf8'), before, 'the backup is the file as it was')

  const again = await runCli(['config', 'claude-desktop', DEMO, '--name', 'demo', '--env', 'TZ=UTC', '--write'], { env, cwd: project })
  t.equal(again.code, 0, again.stderr)
  t.match(again.stderr, /"demo" replaced the entry in/)
  t.same(JSON.parse(readFileSync(file, 'utf8')).mcpServers.demo, { command: 'node', args: [DEMO], env: { TZ: 'UTC' } })
  t.equal(readdirSync(join(home, '.config', 'Claude')).filter((name) => name.endsWith('.bak')).length, 2, 'a backup per write, none overwritten')

  const created = await runCli(['config', 'vscode', DEMO, '--scope', 'project', '--write'], { env, cwd: project })
  t.equal(created.code, 0, created.stderr)
  t.same(JSON.parse(readFileSync(join(project, '.vscode', 'mcp.json'), 'utf8')), { servers: { 'demo-server': { type: 'stdio', command: 'node', args: [DEMO] } } })
  t.match(created.stderr, /"demo-server" created .*\.vscode\/mcp\.json$/m)
  const user = await runCli(['config', 'claude-code', DEMO, '--write'], { env, cwd: project })
  t.equal(user.code, 0, user.stderr)
  t.ok(existsSync(join(home, '.claude.json')), 'Claude Code\'s user scope is ~/.claude.json')
})

t.test('a malformed file is refused and left untouched', async (t) => {
  const { env, home, project } = place(t)
  const file = claudeDesktop(home)
  mkdirSync(join(home, '.config', 'Claude'), { recursive: true })
  const broken = '{ "mcpServers": { "other": { "command": "x" } }, // a comment\n'
  writeFileSync(file, broken)
  const run = await runCli(['config', 'claude-desktop', DEMO, '--write'], { env, cwd: project })
  t.equal(run.code, 2)
  t.match(run.stderr, /error: .*claude_desktop_config\.json is not valid JSON \(.*comments are not supported\): it was left untouched/)
  t.match(run.stderr, /The entry to add:\n\{\n\s+"mcpServers"/)
  t.equal(readFileSync(file, 'utf8'), broken, 'byte for byte')
  t.same(readdirSync(join(home, '.config', 'Claude')), ['claude_desktop_config.json'], 'no backup, no temporary file')
  writeFileSync(file, '{ "mcpServers": [] }')
  const wrongShape = await runCli(['config', 'claude-desktop', DEMO, '--write'], { env, cwd: project })
  t.equal(wrongShape.code, 2)
  t.match(wrongShape.stderr, /"mcpServers" in .* is not an object: the file was left untouched/)
  t.equal(readFileSync(file, 'utf8'), '{ "mcpServers": [] }')
})
