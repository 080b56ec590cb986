// call when the tool asks the user (elicitation): questions on the terminal, answers from stdin,
// checked against the requested schema and asked again until they fit.
import t from 'tap'
import { fixture } from '../helpers/clients.js'
import { runCli } from '../helpers/cli.js'

const SERVER = fixture('cli-server.mjs')

t.test('answers typed on the terminal, asked again until they fit, on both generations', async (t) => {
  for (const protocol of ['2026-07-28', '2025-11-25']) {
    const run = await runCli(['call', SERVER, 'ask', '--protocol', protocol], { input: 'y\n\nAda\nabc\n42\n\nmaybe\nyes\n' })
    t.equal(run.code, 0, run.stderr)
    t.equal(run.stdout, 'Hello {"name":"Ada","age":42,"colour":"blue","member":true}\n')
    t.match(run.stderr, /The server asks: Who are you\?\nAnswer\? \[Y\]es, \[n\]o \(decline\), \[c\]ancel: /)
    t.match(run.stderr, /Name \(string, required\): \n\s+an answer is required\n\s+Name \(string, required\): /)
    t.match(run.stderr, /age \(integer\) · in years: \n\s+expected integer\n/)
    t.match(run.stderr, /colour \("red" \| "blue"\) \[blue\]: /)
    t.match(run.stderr, /member \(boolean\): \n\s+expected yes or no\n/)
  }
})

t.test('decline, and the end of input as a cancel', async (t) => {
  const declined = await runCli(['call', SERVER, 'ask', '--protocol', '2026-07-28'], { input: 'no\n' })
  t.equal(declined.code, 0, declined.stderr)
  t.equal(declined.stdout, 'no answer (decline)\n')
  const ended = await runCli(['call', SERVER, 'ask', '--protocol', '2025-11-25'], { input: '' })
  t.equal(ended.code, 0, ended.stderr)
  t.equal(ended.stdout, 'no answer (cancel)\n')
})
