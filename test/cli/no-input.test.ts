// call without a terminal: --no-input fails clearly when the tool asks; roots are the current
// folder; every kind of content is shown.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import { fixture } from '../helpers/clients.js'
import { runCli } from '../helpers/cli.js'

const SERVER = fixture('cli-server.mjs')

t.test('--no-input: the call fails, saying what was asked', async (t) => {
  for (const protocol of ['2026-07-28', '2025-11-25']) {
    const run = await runCli(['call', SERVER, 'ask', '--no-input', '--protocol', protocol])
    t.equal(run.code, 2)
    t.equal(run.stdout, '')
    t.match(run.stderr, /error: the tool asked for input \("Who are you\?"\) and --no-input forbids asking/)
  }
})

t.test('roots are the current folder; every kind of content is shown', async (t) => {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-cli-roots-')))
  t.teardown(() => { rmSync(cwd, { recursive: true, force: true }) })
  const roots = await runCli(['call', SERVER, 'roots'], { cwd })
  t.equal(roots.code, 0, roots.stderr)
  t.match(JSON.parse(roots.stdout), { roots: [{ uri: pathToFileURL(cwd).href }] })
  const media = await runCli(['call', SERVER, 'media', '--protocol', '2025-11-25'])
  t.equal(media.code, 0, media.stderr)
  t.equal(media.stdout, [
    'line one', 'line two', '[image image/png, 9 bytes]', '[link file:///tmp/x · x]', '[resource mem://a]', 'embedded',
    '[resource mem://b, 3 bytes]', '{', '  "ok": true', '}', ''
  ].join('\n'))
  t.match(media.stderr, /structured content:/)
})
