import type { FastifyRequest } from 'fastify'
import type { HttpCredential } from '../protocol/http.js'
import { headerLines } from '../util/header-lines.js'
import type { AuthConfig } from './strategy.js'

/** Where the configured auth method finds its credential, to give handlers the one it verified. */
export interface CredentialSource {
  /** The header (lower case) the credential is forwarded in; kept out of `ctx.http.headers`. */
  readonly header: string
  /** The credential of `request`, read after the guard accepted it; undefined when it did not run. */
  readonly read: (request: FastifyRequest) => HttpCredential | undefined
}

/**
 * Reads again what the guard verified, when a handler asks (most never do): the guard keeps
 * nothing per request. The guard refused every request whose credential is missing or malformed,
 * so what is read here is the verified credential itself.
 */
export function credentialSource (auth: AuthConfig): CredentialSource {
  if (auth.type !== 'apikey') {
    return {
      header: 'authorization',
      read (request) {
        const header = request.headers.authorization
        if (request.mcpPrincipal === undefined || header === undefined) return undefined
        return Object.freeze({ type: 'bearer', value: header.slice(header.indexOf(' ') + 1).trim(), header: 'authorization' })
      }
    }
  }
  const header = auth.options.headerName.toLowerCase()
  const queryParam = auth.options.queryParam
  return {
    header,
    read (request) {
      if (request.mcpPrincipal === undefined) return undefined
      const value = headerLines(request, header)[0] ??
        (queryParam === undefined ? undefined : (request.query as Record<string, unknown> | undefined)?.[queryParam])
      return typeof value === 'string' ? Object.freeze({ type: 'apikey', value, header }) : undefined
    }
  }
}
