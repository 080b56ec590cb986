import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'

export const fixture = (name: string): string => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url))

/** The text of a tool result's first content item ('' when there is none). */
export const textOf = (result: Record<string, unknown>): string => (result.content as Array<{ text?: string }> | undefined)?.[0]?.text ?? ''

export interface ClientOptions {
  capabilities?: Record<string, unknown>
  headers?: Record<string, string>
}

function newClient (options: ClientOptions): Client {
  return new Client({ name: 'tap-client', version: '1.0.0' }, { capabilities: options.capabilities ?? {} })
}

/**
 * Spawns a fixture server as a real child process, the way MCP hosts do,
 * with the test's node arguments (TypeScript loader and coverage) passed on.
 */
export async function connectStdio (fixtureName: string, env: Record<string, string> = {}, options: ClientOptions = {}): Promise<{ client: Client, transport: StdioClientTransport }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...process.execArgv, fixture(fixtureName)],
    env: { ...process.env as Record<string, string>, ...env },
    stderr: 'pipe'
  })
  const client = newClient(options)
  await client.connect(transport)
  return { client, transport }
}

export async function connectSse (url: string, options: ClientOptions = {}): Promise<{ client: Client, transport: SSEClientTransport }> {
  const headers = options.headers ?? {}
  const transport = new SSEClientTransport(new URL(url), {
    requestInit: { headers },
    eventSourceInit: { fetch: (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } }) }
  })
  const client = newClient(options)
  await client.connect(transport)
  return { client, transport }
}

export async function connectStreamable (url: string, options: ClientOptions = {}): Promise<{ client: Client, transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: options.headers ?? {} } })
  const client = newClient(options)
  await client.connect(transport)
  return { client, transport }
}
