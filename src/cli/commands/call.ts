import { basename } from 'node:path'
import { pathToFileURL } from 'node:url'
import { ErrorCode, McpError } from '../../jsonrpc/errors.js'
import type { JsonRpcNotification } from '../../jsonrpc/messages.js'
import type { CallToolResult, ElicitRequest, ElicitResult } from '../../testing/types.js'
import { argumentsOf, parseLine, targetOf, UsageError } from '../args.js'
import {
  EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_OK, EXIT_TOOL_ERROR, reportFailure,
  type Command, type CommandContext
} from '../context.js'
import { CONNECTION_FLAGS, CONNECTION_HELP, connectWith } from '../connection-flags.js'
import { TerminalPrompter } from '../prompt.js'
import { contentLines, shown } from '../render.js'

const FLAGS = { ...CONNECTION_FLAGS, json: { type: 'string' }, 'no-input': { type: 'boolean', default: false } } as const

/** What ends a call whose tool asks for input under `--no-input`. */
class NoInputError extends Error {}

export const call: Command = {
  help: `Usage: fastify-mcp-server call <target> <tool> [key=value ...] [--json '{...}'] [options]
       fastify-mcp-server call <tool> [key=value ...] [options] -- <command ...>

Runs one tool and prints its content and structured content on stdout. Progress and log
messages go to stderr as they come. When the tool asks for input (elicitation), the questions
are asked on the terminal (answers read from stdin), unless --no-input. Ctrl-C cancels the call:
the server is told, and the tool's handler sees its signal abort.

Arguments:
  key=value               one argument; the value is JSON when it parses as JSON (n=1, on=true,
                          tags='["a","b"]', s='"1"' for the string "1"), else the text as is
  --json '{...}'          arguments as one JSON object (key=value words override its keys)
  --no-input              fail instead of asking when the tool asks for input

${CONNECTION_HELP}

Exit codes: 0 done; 1 the tool answered with isError; 2 anything else (unknown tool, protocol
error, refused credential, unreachable server, input refused); 130 cancelled with Ctrl-C.

Examples:
  fastify-mcp-server call server.js add a=1 b=2
  fastify-mcp-server call http://127.0.0.1:8080/mcp search --json '{"query":"mcp"}' --header 'Authorization: Bearer ...'
  fastify-mcp-server call add a=1 b=2 -- node server.js`,
  run: async (args, context) => {
    const { values, positionals, command } = parseLine(args, FLAGS)
    if (values.help) {
      context.output.out(call.help)
      return EXIT_OK
    }
    const words = command === undefined ? positionals.slice(1) : positionals
    const target = targetOf(positionals[0], command)
    const [tool, ...pairs] = words
    if (tool === undefined) throw new UsageError('missing the name of the tool to call')
    const toolArgs = argumentsOf(pairs, values.json)
    const stop = new AbortController()
    const interrupted = (): void => { stop.abort(context.interrupted.reason) }
    context.interrupted.addEventListener('abort', interrupted, { once: true })
    const prompter = new TerminalPrompter(context.stdin, context.output)
    const onElicit = async (request: ElicitRequest): Promise<ElicitResult> => {
      if (!values['no-input']) return await prompter.elicit(request)
      const refusal = new NoInputError(`the tool asked for input ("${request.message}") and --no-input forbids asking`)
      stop.abort(refusal)
      throw new McpError(ErrorCode.InvalidRequest, 'The user gave no input (--no-input)')
    }
    const connected = await connectWith(target, values, context, {
      onElicit,
      onListRoots: () => ({ roots: [{ uri: pathToFileURL(context.cwd).href, name: basename(context.cwd) }] }),
      onNotification: (message) => { showNotification(message, context) }
    })
    try {
      const result = await connected.client.callTool(tool, toolArgs, { signal: stop.signal })
      printResult(result, context)
      return result.isError === true ? EXIT_TOOL_ERROR : EXIT_OK
    } catch (error) {
      if (context.interrupted.aborted) {
        context.output.err(context.output.styleErr('yellow', 'cancelled: the server was told to stop the tool'))
        return EXIT_INTERRUPTED
      }
      reportFailure(stop.signal.aborted ? stop.signal.reason : error, context, connected.stderrTail())
      return EXIT_FAILURE
    } finally {
      context.interrupted.removeEventListener('abort', interrupted)
      prompter.close()
      await connected.client.close()
    }
  }
}

/** Progress and log messages, on stderr as they arrive. */
function showNotification (message: JsonRpcNotification, context: CommandContext): void {
  const { err, styleErr: style } = context.output
  const params = message.params ?? {}
  if (message.method === 'notifications/progress') {
    const total = params.total === undefined ? '' : `/${shown(params.total)}`
    const text = params.message === undefined ? '' : ` ${shown(params.message)}`
    err(style('dim', `progress ${shown(params.progress)}${total}${text}`))
  } else if (message.method === 'notifications/message') {
    const logger = params.logger === undefined ? '' : `${shown(params.logger)}: `
    const level = shown(params.level)
    err(`${style(level === 'error' || level === 'critical' || level === 'alert' || level === 'emergency' ? 'red' : 'dim', `[${level}]`)} ${logger}${shown(params.data)}`)
  }
}

/**
 * The content on stdout (on stderr for an `isError` result: it is an error message), then the
 * structured content as indented JSON. The text copy a server adds for clients that ignore
 * structured content is not printed twice.
 */
function printResult (result: CallToolResult, context: CommandContext): void {
  const { out, err, styleErr } = context.output
  const write = result.isError === true ? err : out
  const structured = result.structuredContent
  const copy = structured === undefined ? undefined : JSON.stringify(structured)
  let printed = false
  for (const block of result.content ?? []) {
    if (copy !== undefined && block.type === 'text' && block.text === copy) continue
    for (const line of contentLines(block)) write(line)
    printed = true
  }
  if (structured !== undefined) {
    if (printed) err(styleErr('dim', 'structured content:'))
    out(JSON.stringify(structured, null, 2))
  }
  if (result.isError === true) err(styleErr('red', 'the tool reported an error'))
}
