// call's exit codes: 1 when the tool answered isError, 2 for anything else (an unknown tool, a
// server that dies, a target or an argument that means nothing), each said on stderr.
import t from 'tap'
import { DEMO, runCli } from '../helpers/cli.js'

t.test('1: the tool failed; its message on stderr', async (t) => {
  const failed = await runCli(['call', DEMO, 'current_time', 'timeZone=Nowhere/Else', '--protocol', '2026-07-28'])
  t.equal(failed.code, 1)
  t.equal(failed.stdout, '')
  t.match(failed.stderr, /Tool current_time failed: .*Nowhere\/Else/)
  t.match(failed.stderr, /the tool reported an error/)
})

t.test('2: an unknown tool, a server that dies, a usage error', async (t) => {
  const unknown = await runCli(['call', DEMO, 'nope', '--protocol', '2025-11-25'])
  t.equal(unknown.code, 2)
  t.match(unknown.stderr, /error: Unknown tool: nope \(-32602\)/)
  const dead = await runCli(['call', 'add', '--verbose', '--', process.execPath, '-e', 'process.stderr.write("boom on startup\\n"); process.exit(3)'])
  t.equal(dead.code, 2)
  t.match(dead.stderr, /^boom on startup\n/, '--verbose: the server\'s stderr as it comes')
  t.match(dead.stderr, /error: The server exited with code 3/)
  t.match(dead.stderr, /server stderr:\n\s+boom on startup/, 'and again with the failure')
  const missing = await runCli(['call', 'nowhere.js', 'add'])
  t.equal(missing.code, 2)
  t.match(missing.stderr, /error: no such file: nowhere\.js\nRun "fastify-mcp-server call --help" for usage\./)
  const badPair = await runCli(['call', DEMO, 'add', 'a'])
  t.equal(badPair.code, 2)
  t.match(badPair.stderr, /expected key=value, got "a"/)
  const badJson = await runCli(['call', DEMO, 'add', '--json', '[1]'])
  t.equal(badJson.code, 2)
  t.match(badJson.stderr, /--json must be a JSON object of arguments/)
})
