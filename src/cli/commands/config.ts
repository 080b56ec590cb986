import { basename, dirname, extname } from 'node:path'
import { headersOf, parseLine, targetOf, UsageError, type Target } from '../args.js'
import { EXIT_FAILURE, EXIT_OK, type Command } from '../context.js'
import { ConfigRefusedError, mergeServer } from '../config-file.js'
import { HOST_NAMES, HOSTS, type HostName, type Scope, type ServerEntry } from '../hosts.js'

const FLAGS = {
  write: { type: 'boolean', default: false },
  name: { type: 'string' },
  scope: { type: 'string' },
  env: { type: 'string', multiple: true },
  header: { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h', default: false }
} as const

export const config: Command = {
  help: `Usage: fastify-mcp-server config <host> <file | URL> [--write] [options]
       fastify-mcp-server config <host> [--write] [options] -- <command ...>

Prints the configuration entry that makes a host run (or reach) the server. With --write, merges
it into the host's configuration file: the file is copied beside itself first
(<file>.<time>.bak), every other server and setting in it is kept, and a file that is not valid
JSON is refused and left untouched.

Hosts and their files (user scope; project scope in the current folder):
  claude-desktop   ~/.config/Claude/claude_desktop_config.json (Linux; $XDG_CONFIG_HOME is honoured)
                   ~/Library/Application Support/Claude/claude_desktop_config.json (macOS)
                   %APPDATA%\\Claude\\claude_desktop_config.json (Windows)
  claude-code      ~/.claude.json                 project: .mcp.json
  cursor           ~/.cursor/mcp.json             project: .cursor/mcp.json
  vscode           <VS Code user folder>/mcp.json project: .vscode/mcp.json

Options:
  --write                 merge the entry into the host's file (default: print it)
  --name <name>           the server's name in the host (default: from the file name)
  --scope user|project    which file (default user; Claude Desktop has only user)
  --env KEY=VALUE         environment of the server process (repeatable)
  --header 'Name: value'  a header for a URL server (repeatable)

A .js file runs with node, a .ts file with npx tsx; anything else after --.

Examples:
  fastify-mcp-server config claude-desktop ./server.js --write
  fastify-mcp-server config vscode ./server.js --scope project --write
  fastify-mcp-server config cursor https://api.example.com/mcp --header 'Authorization: Bearer \${TOKEN}'`,
  run: async (args, context) => {
    const { values, positionals, command } = parseLine(args, FLAGS)
    if (values.help) {
      context.output.out(config.help)
      return EXIT_OK
    }
    const [hostWord, targetWord, ...rest] = positionals
    if (hostWord === undefined) throw new UsageError(`missing the host: one of ${HOST_NAMES.join(', ')}`)
    if (!(HOST_NAMES as readonly string[]).includes(hostWord)) throw new UsageError(`unknown host "${hostWord}": one of ${HOST_NAMES.join(', ')}`)
    if (rest.length > 0 || (command !== undefined && targetWord !== undefined)) throw new UsageError('one target only: a file, a URL, or -- <command ...>')
    const host = HOSTS[hostWord as HostName]
    const scope = (values.scope ?? 'user') as Scope
    if (!host.scopes.includes(scope)) throw new UsageError(`--scope for ${host.title} must be ${host.scopes.join(' or ')}`)
    const target = targetOf(targetWord, command)
    const server = entryOf(target, values.env ?? [], headersOf(values.header))
    if (server.kind === 'http' && hostWord === 'claude-desktop') {
      throw new UsageError('Claude Desktop launches its servers itself (stdio): add a remote server in its settings (Connectors) instead')
    }
    const name = values.name ?? nameOf(target)
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(name)) throw new UsageError(`--name must be 1 to 64 letters, digits, "_", "." or "-", got "${name}"`)
    const file = host.file(scope, { home: context.home, cwd: context.cwd, platform: process.platform, env: context.env })
    const entry = host.entry(server)
    const { out, err, styleErr: style } = context.output
    if (!values.write) {
      out(JSON.stringify({ [host.key]: { [name]: entry } }, null, 2))
      err(style('dim', `${host.title}: add this to ${file}, or run again with --write`))
      const alternative = host.command?.(name, server, scope)
      if (alternative !== undefined) err(style('dim', `or run: ${alternative}`))
      return EXIT_OK
    }
    try {
      const result = await mergeServer(file, host.key, name, entry)
      const did = result.created ? 'created' : result.replaced ? 'replaced the entry in' : 'added to'
      err(`${host.title}: "${name}" ${did} ${file}${result.backup === undefined ? '' : ` (backup: ${result.backup})`}`)
      err(style('dim', `restart ${host.title} (or reload its MCP servers) to pick it up`))
      return EXIT_OK
    } catch (error) {
      if (!(error instanceof ConfigRefusedError)) throw error
      err(style('red', `error: ${error.message}`))
      err('The entry to add:')
      err(JSON.stringify({ [host.key]: { [name]: entry } }, null, 2))
      return EXIT_FAILURE
    }
  }
}

function entryOf (target: Target, envWords: readonly string[], headers: Record<string, string>): ServerEntry {
  if (target.kind === 'url') return { kind: 'http', url: target.url.href, headers }
  const env: Record<string, string> = {}
  for (const word of envWords) {
    const at = word.indexOf('=')
    if (at <= 0) throw new UsageError(`--env expects KEY=VALUE, got "${word}"`)
    env[word.slice(0, at)] = word.slice(at + 1)
  }
  if (target.kind === 'command') return { kind: 'stdio', command: target.command, args: target.args, env }
  // Hosts start servers with the node found on their PATH; TypeScript goes through tsx.
  return /\.[cm]?ts$/.test(target.path)
    ? { kind: 'stdio', command: 'npx', args: ['tsx', target.path], env }
    : { kind: 'stdio', command: 'node', args: [target.path], env }
}

/** The server's name from where it lives: `weather.js` → weather; `weather/server.js` → weather. */
function nameOf (target: Target): string {
  if (target.kind === 'url') return target.url.hostname.replace(/[^A-Za-z0-9_.-]/g, '-')
  const path = target.kind === 'file' ? target.path : target.args.at(-1) ?? target.command
  const stem = basename(path, extname(path))
  const name = ['index', 'server', 'main'].includes(stem) ? basename(dirname(path)) : stem
  return name.replace(/[^A-Za-z0-9_.-]/g, '-').slice(0, 64) || 'mcp-server'
}
