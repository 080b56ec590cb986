import { Type } from '@sinclair/typebox'
import { REQUEST_STATE_DEFAULTS } from '../protocol/modern/request-state.js'
import { Defaulted, MiB, strict } from './engine/schema.js'

const RequestStateOptionsSchema = Type.Object({
  /**
   * HMAC-SHA256 key that signs the `requestState` of MCP 2026-07-28 multi-round-trip requests
   * (`ctx.elicit`, `ctx.sample`, `ctx.listRoots` on a stateless request), at least 32 characters.
   * Read it from the environment. Default: a random key per server instance, which is right for a
   * single process; replicas behind a load balancer need the same secret, or a retry that lands on
   * another replica is refused, and a restart invalidates the states in flight. Required with
   * `scaleOut` unless only `legacy` protocols are served.
   */
  secret: Type.Optional(Type.String({ minLength: 32 })),
  /** How long a client has to answer and retry, in milliseconds. Default 600000 (10 min). */
  ttlMs: Defaulted(Type.Integer({ minimum: 1000, maximum: 86_400_000, default: REQUEST_STATE_DEFAULTS.ttlMs })),
  /**
   * Largest `requestState` issued or accepted, in bytes. The answers of every earlier round travel
   * in it (clients send only the latest round's), so large sampling results need room. Default 65536.
   */
  maxBytes: Defaulted(Type.Integer({ minimum: 1024, maximum: 4 * MiB, default: REQUEST_STATE_DEFAULTS.maxBytes }))
}, { ...strict, default: {} })

export const requestStateProperties = {
  /** Signing of the `requestState` of 2026-07-28 multi-round-trip requests; every field has a default. */
  requestState: Defaulted(RequestStateOptionsSchema)
}
