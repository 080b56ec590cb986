// call against the demo server as a file and as a command after --, on both protocol
// generations: what goes to stdout (the result), to stderr (progress), and the exit code.
import t from 'tap'
import { DEMO, runCli } from '../helpers/cli.js'

t.test('a file and a command, both generations', async (t) => {
  for (const protocol of ['2026-07-28', '2025-11-25']) {
    const asFile = await runCli(['call', DEMO, 'add', 'a=1', 'b=2', '--protocol', protocol])
    t.equal(asFile.code, 0, asFile.stderr)
    t.equal(asFile.stdout, '3\n')
    const asCommand = await runCli(['call', 'add', 'a=40', '--json', '{"a":1,"b":2}', '--protocol', protocol, '--', process.execPath, DEMO])
    t.equal(asCommand.code, 0, asCommand.stderr)
    t.equal(asCommand.stdout, '42\n', 'key=value overrides --json')
  }
})

t.test('structured content, progress', async (t) => {
  const stats = await runCli(['call', DEMO, 'text_stats', 'text=two words'])
  t.equal(stats.code, 0, stats.stderr)
  const [text, ...json] = stats.stdout.split('\n')
  t.equal(text, '9 characters, 2 words, 1 lines', 'the text content first')
  t.same(JSON.parse(json.join('\n')), { characters: 9, words: 2, lines: 1 }, 'then the structured content as JSON')
  const countdown = await runCli(['call', DEMO, 'countdown', 'seconds=2', '--protocol', '2025-11-25'])
  t.equal(countdown.code, 0, countdown.stderr)
  t.equal(countdown.stdout, 'Lift-off!\n')
  t.match(countdown.stderr, /progress 0\/2 2 s left\nprogress 1\/2 1 s left/, 'progress on stderr as it comes')
})
