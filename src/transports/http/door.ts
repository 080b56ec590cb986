import type { FastifyReply, FastifyRequest } from 'fastify'
import { scopeChallenge, type AuthGuard } from '../../auth/index.js'
import type { JsonRpcRequest } from '../../jsonrpc/messages.js'
import type { Caller } from '../../protocol/caller.js'
import { InsufficientScopeDenial, RateLimitedDenial, type Refusal } from '../../protocol/authz/denials.js'
import type { RateCounter } from '../../protocol/authz/rate.js'
import type { ProtocolServer } from '../../protocol/protocol-server.js'
import { sendRateLimited, sendStepUp } from './replies.js'

/** The `rateLimit` option: JSON-RPC requests per client per window. */
export interface RequestBudget {
  readonly max: number
  readonly timeWindow: number
}

/**
 * What a JSON-RPC request meets on HTTP before it is dispatched (or forwarded to the instance that
 * holds its session): its client's `rateLimit` budget, then the core's gate (the access rule and
 * budget of the definition it acts on). A refusal is answered here, with the status the client can
 * act on: 429 with `Retry-After`, or 403 with the step-up challenge. Decided from the validated
 * body (which the 2026-07-28 `Mcp-Method`/`Mcp-Name` headers were checked against), on every POST
 * route: Streamable HTTP, both generations, and the legacy SSE POST (403 instead of 202).
 */
export class HttpDoor {
  private readonly core: ProtocolServer
  private readonly auth: AuthGuard | undefined
  private readonly counter: RateCounter
  private readonly budget: RequestBudget | undefined

  constructor (core: ProtocolServer, auth: AuthGuard | undefined, counter: RateCounter, budget: RequestBudget | undefined) {
    this.core = core
    this.auth = auth
    this.counter = counter
    this.budget = budget
  }

  /**
   * Answers `message` with its refusal and resolves true, or resolves false to let it through;
   * false at once (nothing awaited) on a server with neither budget nor rules.
   */
  refuses (request: FastifyRequest, reply: FastifyReply, message: JsonRpcRequest, caller: Caller, protocolVersion: string | undefined): Promise<boolean> | false {
    if (this.budget === undefined && !this.core.registry.gated) return false
    return this.decide(request, reply, message, caller, protocolVersion)
  }

  private async decide (request: FastifyRequest, reply: FastifyReply, message: JsonRpcRequest, caller: Caller, protocolVersion: string | undefined): Promise<boolean> {
    const budget = this.budget
    if (budget !== undefined) {
      const hit = await this.counter.hit(caller.client, budget.max, budget.timeWindow)
      if (hit.count > budget.max) return this.refuse(request, reply, message, new RateLimitedDenial(budget.max, budget.timeWindow, hit.resetMs))
      // What @fastify/rate-limit tells a client under its budget, so it can pace itself.
      reply.header('x-ratelimit-limit', String(budget.max))
        .header('x-ratelimit-remaining', String(budget.max - hit.count))
        .header('x-ratelimit-reset', String(Math.ceil(hit.resetMs / 1000)))
    }
    const refusal = await this.core.screen(message, caller, { protocolVersion: protocolVersion ?? '', counter: this.counter })
    return refusal === undefined ? false : this.refuse(request, reply, message, refusal)
  }

  private refuse (request: FastifyRequest, reply: FastifyReply, message: JsonRpcRequest, refusal: Refusal): true {
    if (refusal instanceof InsufficientScopeDenial) {
      const challenge = this.auth?.scopeChallenge(request, refusal.requiredScopes) ?? scopeChallenge(refusal.requiredScopes)
      sendStepUp(reply, message.id, refusal, challenge)
    } else {
      sendRateLimited(reply, message.id, refusal)
    }
    return true
  }
}
