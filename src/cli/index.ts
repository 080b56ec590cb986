#!/usr/bin/env node
// The package's `bin`: `npx fastify-mcp-server <command>`. Everything it does is in main.ts; this
// file only binds it to the process (streams, signals, the exit code).
import { homedir } from 'node:os'
import { main } from './main.js'
import { createOutput } from './output.js'
import { EXIT_INTERRUPTED } from './context.js'

const interrupt = new AbortController()
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    // The first one is a cancel the command finishes cleanly; the second one does not wait.
    if (interrupt.signal.aborted) process.exit(EXIT_INTERRUPTED)
    interrupt.abort(new Error(`interrupted (${signal})`))
  })
}

// A reader that stops early (`inspect server.js | head`) closes the pipe: the rest has no reader,
// which is no failure of the command, and no stack trace for the human either.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0)
  throw error
})

const code = await main(process.argv.slice(2), {
  output: createOutput(process.stdout, process.stderr, process.env),
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  interrupted: interrupt.signal,
  cwd: process.cwd(),
  home: homedir()
})
// Whatever is still open (a keep-alive socket, stdin) must not hold the exit; what was written is flushed first.
process.stdout.write('', () => { process.exit(code) })
