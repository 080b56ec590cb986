import type { FastifyRequest, onRequestHookHandler } from 'fastify'
import type { CredentialSource } from '../../auth/credential.js'
import { kHttpFacts, type HttpFacts, type HttpPeer } from '../../protocol/http.js'

/**
 * The last onRequest hook of every MCP route: attaches to the raw request (which is what the
 * transports hand the dispatcher) what only Fastify and the auth guard know, for `ctx.http`. One
 * small object per request; every fact is read when a handler asks, not before.
 */
export function requestFactsHook (credential: CredentialSource | undefined): onRequestHookHandler {
  return function mcpRequestFacts (request, _reply, done) {
    (request.raw as HttpPeer)[kHttpFacts] = new RequestFacts(request, credential)
    done()
  }
}

class RequestFacts implements HttpFacts {
  private readonly request: FastifyRequest
  private readonly source: CredentialSource | undefined

  constructor (request: FastifyRequest, source: CredentialSource | undefined) {
    this.request = request
    this.source = source
  }

  get remoteAddress (): string | undefined {
    return this.request.ip
  }

  get credential (): HttpFacts['credential'] {
    return this.source?.read(this.request)
  }

  get credentialHeader (): string | undefined {
    return this.source?.header
  }
}
