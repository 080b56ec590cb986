import type { HttpPeer } from './http.js'
import { principalKey, type Principal } from './principal.js'

/** The transport a message came in on. */
export type CallerTransport = 'stdio' | 'sse' | 'streamable'

/**
 * Who sent one message, as the transport that received it knows: handed to the dispatcher with
 * every message, so that the protocol never asks a transport anything. Everything per caller reads
 * it: `ctx.auth`, the access rules and rate limits (the gate, before dispatch), the per-client
 * bounds (listen streams, task quotas, bytes in flight), the end of a stream with the credential
 * that opened it, telemetry's peer.
 *
 * Built once per transport request (one HTTP request, one stdio line); its fields are read only by
 * the methods that need them, so an implementation may compute them lazily (`HttpCaller` does).
 */
export interface Caller {
  /** The principal verified for the transport request that carried the message; undefined without auth (always on stdio). */
  readonly principal: Principal | undefined
  /**
   * The key per-client bounds count against, the same for every transport: `principal <identity>`
   * with auth, `address <ip>` without (IPv6 by its /64), `stdio` for the one client of a stdio
   * process (see {@link principalClient}; the HTTP transports make the address key).
   */
  readonly client: string
  /**
   * Epoch ms from which the guard refuses the credential this message came with (its expiry plus
   * the clock tolerance); undefined when it does not expire, or without auth. What the message
   * opens (a listen stream) ends then: the client comes back with a valid credential.
   */
  readonly validUntil: number | undefined
  /** The size of the message as received (the HTTP body, the stdio line), in bytes; 0 when unknown. */
  readonly bytes: number
  readonly transport: CallerTransport
  /** The HTTP request that carried the message (undefined on stdio): `ctx.http`, and telemetry's `network.*` and `client.*`. */
  readonly peer: HttpPeer | undefined
}

/** The client key of an authenticated caller: its identity, so that every token of one identity counts as one client. */
export function principalClient (principal: Principal): string {
  return `principal ${principalKey(principal)}`
}

/** The one client of a stdio process (the process that started the server), with the message's size. */
export function stdioCaller (bytes: number): Caller {
  return { principal: undefined, client: 'stdio', validUntil: undefined, bytes, transport: 'stdio', peer: undefined }
}
