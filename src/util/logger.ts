import { pino, type Logger } from 'pino'

/**
 * The logger used when no Fastify instance provides one (stdio). It writes to
 * stderr because stdout belongs to the protocol.
 */
export function createStderrLogger (level: string): Logger {
  return pino({ name: 'fastify-mcp-server', level }, pino.destination({ fd: 2, sync: true }))
}

/** Where operators see what clients must not: handler failures with their stacks. */
export interface ErrorLogger {
  error: (details: Record<string, unknown>, message: string) => void
}
