// inspect against the demo server as a file (a child over stdio) and as a command after --, on
// both protocol generations: the table, the JSON, the exit code.
import t from 'tap'
import { once } from 'node:events'
import { DEMO, runCli, startCli } from '../helpers/cli.js'

t.test('the demo as a file: a table on stdout, no colour in a pipe', async (t) => {
  const run = await runCli(['inspect', DEMO])
  t.equal(run.code, 0, run.stderr)
  t.match(run.stdout, /^demo 1\.0\.0$/m)
  t.match(run.stdout, /protocol\s+2026-07-28 over stdio/, 'auto picks 2026-07-28 when the server speaks it')
  t.match(run.stdout, /speaks\s+2026-07-28 \(stateless\); 2025-11-25, .* \(sessions\)/)
  t.match(run.stdout, /offers\s+completions, extensions, logging, prompts \(listChanged\), resources \(subscribe, listChanged\), tools \(listChanged\)/)
  t.match(run.stdout, /Instructions\n\s+A demo server: arithmetic/)
  t.match(run.stdout, /Tools \(4\)/)
  t.match(run.stdout, /add\s+Adds two numbers\n\s+a: number \(required\)\n\s+b: number \(required\)/)
  t.match(run.stdout, /current_time\s+.*\n\s+timeZone: string · For example Europe\/Paris/)
  t.match(run.stdout, /text_stats\s+Counts characters, words and lines of a text \[read-only\]/)
  t.match(run.stdout, /→ characters: integer \(required\)/)
  t.match(run.stdout, /demo:\/\/about\s+about · text\/markdown · What this server is/)
  t.match(run.stdout, /demo:\/\/zones\/\{zone\}\s+time-in-zone · text\/plain/)
  t.match(run.stdout, /summarize\s+Asks the model to summarize a text\n\s+text \(required\) · The text to summarize\n\s+style · bullet points/)
  t.notOk(run.stdout.includes('\u001b['), 'no escape codes')
})

t.test('a reader that stops early (| head) ends the command quietly', async (t) => {
  const child = startCli(['inspect', DEMO])
  child.stdin.end()
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
  // Like head: read the first chunk, then close the pipe while the table is still being written.
  await once(child.stdout, 'data')
  child.stdout.destroy()
  const [code] = await once(child, 'close') as [number | null]
  t.equal(code, 0, stderr)
  t.notMatch(stderr, /EPIPE|Error/, 'no stack trace on stderr')
})

t.test('--json, the demo as a command after --, on each generation', async (t) => {
  for (const protocol of ['2026-07-28', '2025-11-25']) {
    const run = await runCli(['inspect', '--json', '--protocol', protocol, '--', process.execPath, DEMO])
    t.equal(run.code, 0, run.stderr)
    const found = JSON.parse(run.stdout)
    t.equal(found.protocolVersion, protocol)
    t.equal(found.transport, 'stdio')
    t.same(found.serverInfo, { name: 'demo', version: '1.0.0' })
    t.same(found.generations, protocol === '2026-07-28' ? ['2026-07-28 (stateless)', '2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05 (sessions)'] : ['2025-11-25 (sessions)'])
    t.same(found.tools.map((tool: { name: string }) => tool.name), ['add', 'current_time', 'text_stats', 'countdown'])
    t.same(found.tools[0].inputSchema.required, ['a', 'b'])
    t.same(found.resources.map((r: { uri: string }) => r.uri), ['ui://demo/text-stats', 'demo://about'], 'the app view of text_stats, then the about page')
    t.same(found.resourceTemplates.map((r: { uriTemplate: string }) => r.uriTemplate), ['demo://zones/{zone}'])
    t.same(found.prompts.map((p: { name: string }) => p.name), ['summarize'])
    t.equal(found.instructions, 'A demo server: arithmetic, the time anywhere, text statistics and a cancellable countdown.')
  }
})
