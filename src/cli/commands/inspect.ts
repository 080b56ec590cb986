import { McpError } from '../../jsonrpc/errors.js'
import type { TestClient } from '../../testing/client.js'
import type { DiscoverResult, Prompt, Resource, ResourceTemplate, Tool } from '../../testing/types.js'
import { isRecord } from '../../util/is-record.js'
import { parseLine, targetOf, UsageError } from '../args.js'
import {
  EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_OK, reportFailure,
  type Command
} from '../context.js'
import { CONNECTION_FLAGS, CONNECTION_HELP, connectWith } from '../connection-flags.js'
import type { Output } from '../output.js'
import { parameterLines } from '../render.js'

const FLAGS = { ...CONNECTION_FLAGS, json: { type: 'boolean', default: false } } as const

/** Everything a server offers, as `inspect` gathers it. */
export interface Inventory extends DiscoverResult {
  /** The generations the server speaks, from its supported versions. */
  generations: string[]
  transport: string
  tools: Tool[]
  resources: Resource[]
  resourceTemplates: ResourceTemplate[]
  prompts: Prompt[]
}

export const inspect: Command = {
  help: `Usage: fastify-mcp-server inspect <target> [--json] [options]
       fastify-mcp-server inspect [options] -- <command ...>

Shows what a server offers: its name and version, the protocol generations it speaks, its
capabilities and instructions, its tools with their input schemas, its resources, resource
templates and prompts. A readable table, or JSON with --json.

${CONNECTION_HELP}

Output:
  --json                  the whole inventory as one JSON document on stdout

Exit codes: 0 done; 2 anything else (unreachable server, refused credential, protocol error).

Examples:
  fastify-mcp-server inspect server.js
  fastify-mcp-server inspect https://api.example.com/mcp --header 'X-API-Key: ...' --json
  fastify-mcp-server inspect -- python server.py`,
  run: async (args, context) => {
    const { values, positionals, command } = parseLine(args, FLAGS)
    if (values.help) {
      context.output.out(inspect.help)
      return EXIT_OK
    }
    if (positionals.length > (command === undefined ? 1 : 0)) throw new UsageError(`unexpected argument "${positionals.at(-1) ?? ''}"`)
    const target = targetOf(positionals[0], command)
    const connected = await connectWith(target, values, context)
    try {
      const inventory = await gather(connected.client, connected.transport, context.interrupted)
      if (values.json) context.output.out(JSON.stringify(inventory, null, 2))
      else printInventory(inventory, context.output)
      return EXIT_OK
    } catch (error) {
      if (context.interrupted.aborted) return EXIT_INTERRUPTED
      reportFailure(error, context, connected.stderrTail())
      return EXIT_FAILURE
    } finally {
      await connected.client.close()
    }
  }
}

async function gather (client: TestClient, transport: string, signal: AbortSignal): Promise<Inventory> {
  const found = await client.discover({ signal })
  const capabilities = found.capabilities ?? {}
  const all = async <T>(key: string, capability: string, list: (cursor: string | undefined) => Promise<Record<string, unknown>>): Promise<T[]> => {
    if (capabilities[capability] === undefined) return []
    const items: T[] = []
    let cursor: string | undefined
    do {
      const page = await list(cursor)
      items.push(...(page[key] as T[]))
      cursor = typeof page.nextCursor === 'string' ? page.nextCursor : undefined
    } while (cursor !== undefined)
    return items
  }
  const opts = (cursor: string | undefined): { signal: AbortSignal, cursor?: string } => cursor === undefined ? { signal } : { signal, cursor }
  return {
    ...found,
    generations: generationsOf(found.supportedVersions),
    transport,
    tools: await all<Tool>('tools', 'tools', async (cursor) => { return { ...await client.listTools(opts(cursor)) } }),
    resources: await all<Resource>('resources', 'resources', async (cursor) => { return { ...await client.listResources(opts(cursor)) } }),
    resourceTemplates: await all<ResourceTemplate>('resourceTemplates', 'resources', async (cursor) => {
      try {
        return { ...await client.listResourceTemplates(opts(cursor)) }
      } catch (error) {
        // Templates came later than resources: a server may not list them.
        if (error instanceof McpError && error.code === -32601) return { resourceTemplates: [] }
        throw error
      }
    }),
    prompts: await all<Prompt>('prompts', 'prompts', async (cursor) => { return { ...await client.listPrompts(opts(cursor)) } })
  }
}

function generationsOf (versions: readonly string[]): string[] {
  const generations: string[] = []
  if (versions.some((version) => version >= '2026-07-28')) generations.push('2026-07-28 (stateless)')
  const legacy = versions.filter((version) => version < '2026-07-28')
  if (legacy.length > 0) generations.push(`${legacy.join(', ')} (sessions)`)
  return generations
}

function capabilityWords (capabilities: Record<string, unknown>): string {
  return Object.keys(capabilities).sort().map((name) => {
    const value = capabilities[name]
    const flags = isRecord(value) ? Object.keys(value).filter((key) => value[key] === true) : []
    return flags.length > 0 ? `${name} (${flags.join(', ')})` : name
  }).join(', ')
}

function printInventory (inventory: Inventory, output: Output): void {
  const { out, styleOut: style } = output
  const { serverInfo } = inventory
  out(`${style('bold', String(serverInfo.title ?? serverInfo.name))} ${style('dim', String(serverInfo.version))}`)
  out(`  protocol   ${inventory.protocolVersion} over ${inventory.transport}`)
  out(`  speaks     ${inventory.generations.join('; ')}`)
  out(`  offers     ${capabilityWords(inventory.capabilities) || 'nothing'}`)
  if (inventory.instructions !== undefined) {
    out('')
    out(style('bold', 'Instructions'))
    for (const line of inventory.instructions.split('\n')) out(`  ${line}`)
  }
  section(output, 'Tools', inventory.tools.map((tool) => ({
    name: tool.name,
    about: [tool.description ?? tool.title ?? '', ...hints(tool)].filter((part) => part !== '').join(' '),
    details: [
      ...parameterLines(tool.inputSchema),
      ...(tool.outputSchema === undefined ? [] : parameterLines(tool.outputSchema).map((line) => `→ ${line}`))
    ]
  })))
  section(output, 'Resources', inventory.resources.map((resource) => ({
    name: resource.uri,
    about: [resource.name, resource.mimeType, resource.description].filter((part) => part !== undefined).join(' · '),
    details: []
  })))
  section(output, 'Resource templates', inventory.resourceTemplates.map((template) => ({
    name: template.uriTemplate,
    about: [template.name, template.mimeType, template.description].filter((part) => part !== undefined).join(' · '),
    details: []
  })))
  section(output, 'Prompts', inventory.prompts.map((prompt) => ({
    name: prompt.name,
    about: prompt.description ?? prompt.title ?? '',
    details: (prompt.arguments ?? []).map((arg) => `${arg.name}${arg.required === true ? ' (required)' : ''}${arg.description === undefined ? '' : ` · ${arg.description}`}`)
  })))
}

function hints (tool: Tool): string[] {
  const annotations = tool.annotations ?? {}
  const words: string[] = []
  if (annotations.readOnlyHint === true) words.push('[read-only]')
  if (annotations.destructiveHint === true) words.push('[destructive]')
  const support = tool.execution?.taskSupport
  if (support !== undefined && support !== 'forbidden') words.push(`[task: ${support}]`)
  return words
}

function section (output: Output, title: string, rows: Array<{ name: string, about: string, details: string[] }>): void {
  const { out, styleOut: style } = output
  out('')
  out(style('bold', `${title} (${rows.length})`))
  if (rows.length === 0) {
    out(style('dim', '  none'))
    return
  }
  const width = Math.min(32, Math.max(...rows.map((row) => [...row.name].length)))
  for (const row of rows) {
    const pad = ' '.repeat(Math.max(0, width - [...row.name].length))
    out(`  ${style('cyan', row.name)}${pad}  ${row.about}`.trimEnd())
    for (const detail of row.details) out(`  ${' '.repeat(width)}  ${style('dim', detail)}`)
  }
}
