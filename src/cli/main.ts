import { UsageError } from './args.js'
import { EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_OK, reportFailure, type Command, type CommandContext } from './context.js'

/** Each command's module is loaded when it runs: `call` does not pay for what `dev` needs. */
const COMMANDS: Readonly<Record<string, { summary: string, load: () => Promise<Command> }>> = {
  inspect: {
    summary: 'what a server offers: identity, versions, capabilities, tools, resources, prompts',
    load: async () => (await import('./commands/inspect.js')).inspect
  },
  call: {
    summary: 'run a tool and print its result (progress, logs and questions on the terminal)',
    load: async () => (await import('./commands/call.js')).call
  },
  dev: {
    summary: 'run a server file and restart it on every change (stdio, or --http)',
    load: async () => (await import('./commands/dev.js')).dev
  },
  config: {
    summary: 'the host configuration for a server (Claude Desktop, Claude Code, Cursor, VS Code), or --write it',
    load: async () => (await import('./commands/config.js')).config
  }
}

const USAGE = `Usage: fastify-mcp-server <command> [arguments] [options]

Commands:
${Object.entries(COMMANDS).map(([name, command]) => `  ${name.padEnd(9)}${command.summary}`).join('\n')}

Run "fastify-mcp-server <command> --help" for a command's arguments and options.`

/** Runs one command line; resolves with the exit code. */
export async function main (argv: readonly string[], context: CommandContext): Promise<number> {
  const [name, ...args] = argv
  const { output } = context
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    const topic = name === 'help' ? args[0] : undefined
    const command = topic === undefined || !Object.hasOwn(COMMANDS, topic) ? undefined : await COMMANDS[topic]?.load()
    output.out(command?.help ?? USAGE)
    return topic === undefined || command !== undefined ? EXIT_OK : EXIT_FAILURE
  }
  const command = Object.hasOwn(COMMANDS, name) ? await COMMANDS[name]?.load() : undefined
  if (command === undefined) {
    output.err(output.styleErr('red', `error: unknown command "${name}"`))
    output.err(USAGE)
    return EXIT_FAILURE
  }
  try {
    return await command.run(args, context)
  } catch (error) {
    if (context.interrupted.aborted) return EXIT_INTERRUPTED
    if (error instanceof UsageError) {
      output.err(output.styleErr('red', `error: ${error.message}`))
      output.err(`Run "fastify-mcp-server ${name} --help" for usage.`)
      return EXIT_FAILURE
    }
    reportFailure(error, context)
    return EXIT_FAILURE
  }
}
