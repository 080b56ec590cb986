import type { FastifyServerOptions } from 'fastify'
import { credentialParams, REDACTED, requestLogSerializer } from '../../auth/redact.js'
import type { ResolvedAuthOptions } from '../../schemas/resolve.js'

/**
 * Logger options of MCPServer's own Fastify instance (the project owns that logger, so no
 * credential may reach any of its lines, on any route, MCP or not):
 * - the request serializer redacts credential query parameters from every request line;
 * - `redact` censors credential headers wherever a `headers` object gets logged;
 * - a last pass over each finished line censors credential query parameters (and, with API keys,
 *   the configured keys themselves) wherever they sit: in a message such as Fastify's
 *   "Route GET:/sse/?key=... not found", in an error's message, in a path.
 */
export function httpLoggerOptions (level: string, auth: ResolvedAuthOptions | undefined): NonNullable<FastifyServerOptions['logger']> {
  const params = credentialParams(auth)
  const headers = ['authorization', 'cookie', 'proxy-authorization']
  if (auth?.type === 'apikey') headers.push(auth.options.headerName.toLowerCase())
  const paths = headers.flatMap((name) => [`req.headers["${name}"]`, `headers["${name}"]`])
  const names = params.map(escapeRegExp).join('|')
  // name=value in a query string (the name possibly percent-encoded is left to the serializer).
  const inQuery = new RegExp(`([?&;](?:${names})=)[^&#\\s"\\\\]*`, 'gi')
  const keys = auth?.type === 'apikey' ? auth.options.keys.map((key) => JSON.stringify(key).slice(1, -1)) : []
  return {
    level,
    serializers: { req: requestLogSerializer(params) },
    redact: { paths, censor: REDACTED },
    hooks: {
      streamWrite (line: string): string {
        let out = line.replace(inQuery, `$1${REDACTED}`)
        for (const key of keys) if (out.includes(key)) out = out.replaceAll(key, REDACTED)
        return out
      }
    }
  }
}

function escapeRegExp (text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
