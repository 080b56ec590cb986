import { join } from 'node:path'

/**
 * Where MCP hosts keep their server list, and the shape of one entry in it. Facts from each
 * host's documentation: Claude Desktop's `claude_desktop_config.json` (Electron's app-data folder:
 * `~/Library/Application Support` on macOS, `%APPDATA%` on Windows, `$XDG_CONFIG_HOME` or
 * `~/.config` on Linux); Claude Code's user scope (`~/.claude.json`) and project scope
 * (`.mcp.json`); Cursor's `~/.cursor/mcp.json` and `.cursor/mcp.json`; VS Code's `mcp.json` in
 * the user profile folder and `.vscode/mcp.json` in a workspace (a `servers` map, not
 * `mcpServers`).
 */

export type HostName = 'claude-desktop' | 'claude-code' | 'cursor' | 'vscode'
export const HOST_NAMES: readonly HostName[] = ['claude-desktop', 'claude-code', 'cursor', 'vscode']

export type Scope = 'user' | 'project'

/** A server as a host launches (stdio) or reaches (http) it. */
export type ServerEntry =
  | { kind: 'stdio', command: string, args: string[], env: Record<string, string> }
  | { kind: 'http', url: string, headers: Record<string, string> }

export interface Place {
  home: string
  cwd: string
  platform: NodeJS.Platform
  env: NodeJS.ProcessEnv
}

export interface Host {
  title: string
  scopes: readonly Scope[]
  /** The key of the server map in the host's file. */
  key: 'mcpServers' | 'servers'
  file: (scope: Scope, place: Place) => string
  entry: (server: ServerEntry) => Record<string, unknown>
  /** Another way to add it (the host's own command), when there is one. */
  command?: (name: string, server: ServerEntry, scope: Scope) => string
}

/** The folder Electron apps (Claude Desktop, VS Code) keep their settings in. */
function appData ({ home, platform, env }: Place): string {
  if (platform === 'darwin') return join(home, 'Library', 'Application Support')
  if (platform === 'win32') return env.APPDATA ?? join(home, 'AppData', 'Roaming')
  return env.XDG_CONFIG_HOME !== undefined && env.XDG_CONFIG_HOME !== '' ? env.XDG_CONFIG_HOME : join(home, '.config')
}

function plainEntry (server: ServerEntry, typed: boolean): Record<string, unknown> {
  if (server.kind === 'http') {
    return { ...(typed ? { type: 'http' } : {}), url: server.url, ...(Object.keys(server.headers).length > 0 ? { headers: server.headers } : {}) }
  }
  return { ...(typed ? { type: 'stdio' } : {}), command: server.command, args: server.args, ...(Object.keys(server.env).length > 0 ? { env: server.env } : {}) }
}

const quote = (word: string): string => /^[\w./:@=+-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`

export const HOSTS: Readonly<Record<HostName, Host>> = {
  'claude-desktop': {
    title: 'Claude Desktop',
    scopes: ['user'],
    key: 'mcpServers',
    file: (_scope, place) => join(appData(place), 'Claude', 'claude_desktop_config.json'),
    entry: (server) => plainEntry(server, false)
  },
  'claude-code': {
    title: 'Claude Code',
    scopes: ['user', 'project'],
    key: 'mcpServers',
    file: (scope, place) => scope === 'project' ? join(place.cwd, '.mcp.json') : join(place.home, '.claude.json'),
    entry: (server) => plainEntry(server, true),
    command: (name, server, scope) => server.kind === 'http'
      ? ['claude', 'mcp', 'add', '--scope', scope, '--transport', 'http', name, server.url, ...Object.entries(server.headers).flatMap(([header, value]) => ['--header', `${header}: ${value}`])].map(quote).join(' ')
      : ['claude', 'mcp', 'add', '--scope', scope, ...Object.entries(server.env).flatMap(([key, value]) => ['--env', `${key}=${value}`]), name, '--', server.command, ...server.args].map(quote).join(' ')
  },
  cursor: {
    title: 'Cursor',
    scopes: ['user', 'project'],
    key: 'mcpServers',
    file: (scope, place) => scope === 'project' ? join(place.cwd, '.cursor', 'mcp.json') : join(place.home, '.cursor', 'mcp.json'),
    entry: (server) => plainEntry(server, false)
  },
  vscode: {
    title: 'VS Code',
    scopes: ['user', 'project'],
    key: 'servers',
    file: (scope, place) => scope === 'project' ? join(place.cwd, '.vscode', 'mcp.json') : join(appData(place), 'Code', 'User', 'mcp.json'),
    entry: (server) => plainEntry(server, true)
  }
}
