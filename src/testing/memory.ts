import { PassThrough } from 'node:stream'
import { ProtocolServer } from '../protocol/protocol-server.js'
import type { MCPServer } from '../server.js'
import { StdioRunner } from '../transports/stdio/runner.js'
import type { Inbound } from './channel.js'
import { lineChannel, type MultiplexChannel } from './multiplex.js'

/** Servers with a test client attached: one stdio runner serves one client at a time. */
const attached = new WeakSet<MCPServer>()

/**
 * Drives a server that was not started through its stdio runner, over a pair of in-memory
 * streams instead of the process's stdin and stdout: the same line framing, generation pinning,
 * 2026-07-28 ladder, cancellation and limits as a host launching it, in this process.
 */
export function memoryChannel (server: MCPServer, inbound: Inbound): MultiplexChannel {
  const { core, lifecycle } = internals(server)
  if (lifecycle !== 'idle') throw new Error('createTestClient needs an MCPServer that has not been started: a started one already serves its own transport')
  if (attached.has(server)) throw new Error('This MCPServer already has an open test client: close it first (one stdio client per server, as in a real process)')
  attached.add(server)
  const toServer = new PassThrough()
  const fromServer = new PassThrough()
  const runner = new StdioRunner(core, { input: toServer, output: fromServer, maxMessageBytes: server.options.maxMessageBytes })
  runner.start()
  return lineChannel(fromServer, toServer, inbound, {
    release: async () => {
      // Handlers still running are aborted, as when a host goes away.
      await runner.stop()
      toServer.end()
      fromServer.end()
      attached.delete(server)
    }
  })
}

/**
 * The server's core and lifecycle. They are private to `MCPServer` (its public surface is the
 * registry and start/stop), and the testing entry is the one in-package reader.
 */
function internals (server: MCPServer): { core: ProtocolServer, lifecycle: string } {
  const view = server as unknown as { core?: unknown, lifecycle?: unknown }
  /* c8 ignore next: a guard for a refactor of MCPServer that this module would otherwise miss */
  if (!(view.core instanceof ProtocolServer) || typeof view.lifecycle !== 'string') throw new Error('createTestClient: this MCPServer does not have the expected internals')
  return { core: view.core, lifecycle: view.lifecycle }
}
