// config: the snippet each host needs, printed (stdout), with where it goes (stderr). main() in
// this process, with a home of its own (config-write.test.ts runs the binary).
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { DEMO } from '../helpers/cli.js'
import { runMain } from '../helpers/cli-main.js'

/** A fresh home and project folder; the CLI runs with them. */
function place (t: Test): { home: string, project: string, env: NodeJS.ProcessEnv } {
  // HOME is the home of a child process; main() in this process is given it directly.
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-cli-config-')))
  t.teardown(() => { rmSync(root, { recursive: true, force: true }) })
  const home = join(root, 'home')
  const project = join(root, 'project')
  mkdirSync(home)
  mkdirSync(project)
  return { home, project, env: { HOME: home, XDG_CONFIG_HOME: '', APPDATA: '' } }
}

t.test('the snippet for each host, printed', async (t) => {
  const { env, home, project } = place(t)
  const desktop = await runMain(['config', 'claude-desktop', DEMO], { env, cwd: project, home })
  t.equal(desktop.code, 0, desktop.stderr)
  t.same(JSON.parse(desktop.stdout), { mcpServers: { 'demo-server': { command: 'node', args: [DEMO] } } })
  t.match(desktop.stderr, /Claude Desktop: add this to .*\/home\/\.config\/Claude\/claude_desktop_config\.json, or run again with --write/)
  const code = await runMain(['config', 'claude-code', DEMO, '--name', 'demo', '--env', 'TZ=UTC'], { env, cwd: project, home })
  t.equal(code.code, 0, code.stderr)
  t.same(JSON.parse(code.stdout), { mcpServers: { demo: { type: 'stdio', command: 'node', args: [DEMO], env: { TZ: 'UTC' } } } })
  t.match(code.stderr, new RegExp(`or run: claude mcp add --scope user --env TZ=UTC demo -- node ${DEMO}`))
  const vscode = await runMain(['config', 'vscode', 'https://mcp.example.com/mcp', '--header', 'Authorization: Bearer x'], { env, cwd: project, home })
  t.equal(vscode.code, 0, vscode.stderr)
  t.same(JSON.parse(vscode.stdout), { servers: { 'mcp.example.com': { type: 'http', url: 'https://mcp.example.com/mcp', headers: { authorization: 'Bearer x' } } } })
  const cursor = await runMain(['config', 'cursor', '--scope', 'project', '--', 'python', 'weather/server.py'], { env, cwd: project, home })
  t.equal(cursor.code, 0, cursor.stderr)
  t.same(JSON.parse(cursor.stdout), { mcpServers: { weather: { command: 'python', args: ['weather/server.py'] } } })
  t.match(cursor.stderr, new RegExp(`${project}/\\.cursor/mcp\\.json`))
  const remote = await runMain(['config', 'claude-desktop', 'https://mcp.example.com/mcp'], { env, cwd: project, home })
  t.equal(remote.code, 2)
  t.match(remote.stderr, /Claude Desktop launches its servers itself/)
  const unknown = await runMain(['config', 'emacs', DEMO], { env, cwd: project, home })
  t.equal(unknown.code, 2)
  t.match(unknown.stderr, /unknown host "emacs": one of claude-desktop, claude-code, cursor, vscode/)
})
