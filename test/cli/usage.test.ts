// --help for the CLI and every command; what an unknown command or a bad flag gets; colour only
// on a terminal. main() in this process (the child-process tests run the real binary).
import t from 'tap'
import { runMain as runCli } from '../helpers/cli-main.js'

t.test('the commands, and each one\'s --help', async (t) => {
  const top = await runCli(['--help'])
  t.equal(top.code, 0)
  t.match(top.stdout, /^Usage: fastify-mcp-server <command>/)
  for (const name of ['inspect', 'call', 'dev', 'config']) t.match(top.stdout, new RegExp(`^  ${name} +\\S`, 'm'))
  for (const [name, words] of [['inspect', /--json/], ['call', /Exit codes: 0 done; 1 the tool answered with isError; 2 anything else/], ['dev', /FASTIFY_MCP_SERVER_HTTP_PORT/], ['config', /claude-desktop {3}~\/\.config\/Claude\/claude_desktop_config\.json/]] as const) {
    const help = await runCli([name, '--help'])
    t.equal(help.code, 0, `${name} --help`)
    t.match(help.stdout, new RegExp(`^Usage: fastify-mcp-server ${name} `))
    t.match(help.stdout, words)
  }
  const viaHelp = await runCli(['help', 'dev'])
  t.equal(viaHelp.code, 0)
  t.match(viaHelp.stdout, /^Usage: fastify-mcp-server dev <file>/)
})

t.test('mistakes: exit code 2 and a pointer to the help', async (t) => {
  const unknown = await runCli(['frobnicate'])
  t.equal(unknown.code, 2)
  t.match(unknown.stderr, /error: unknown command "frobnicate"\nUsage: fastify-mcp-server/)
  const badFlag = await runCli(['inspect', '--nope'])
  t.equal(badFlag.code, 2)
  t.match(badFlag.stderr, /error: Unknown option '--nope'.*\nRun "fastify-mcp-server inspect --help" for usage\./s)
  const noTool = await runCli(['dev', 'a.js', 'b.js'])
  t.equal(noTool.code, 2)
  t.match(noTool.stderr, /dev takes one server file/)
})

t.test('colour on a terminal only, never under NO_COLOR, always under FORCE_COLOR', async (t) => {
  const styled = (run: { stderr: string }): boolean => run.stderr.includes('\u001b[')
  t.ok(styled(await runCli(['frobnicate'], { tty: true })), 'a terminal')
  t.notOk(styled(await runCli(['frobnicate'], { tty: false })), 'a pipe')
  t.notOk(styled(await runCli(['frobnicate'], { tty: true, env: { NO_COLOR: '1' } })), 'NO_COLOR')
  t.ok(styled(await runCli(['frobnicate'], { tty: false, env: { FORCE_COLOR: '1' } })), 'FORCE_COLOR')
  t.notOk(styled(await runCli(['frobnicate'], { tty: true, env: { FORCE_COLOR: '0' } })), 'FORCE_COLOR=0')
})
