import { Type } from '@sinclair/typebox'
import { LISTEN_DEFAULTS } from '../protocol/listen/hub.js'
import { Defaulted, strict } from './engine/schema.js'

/** Bounds of MCP 2026-07-28 `subscriptions/listen` streams (on every transport). */
const ListenOptionsSchema = Type.Object({
  /** Listen streams open at once on this server; a further `subscriptions/listen` is refused (-32603). Default 10000. */
  maxStreams: Defaulted(Type.Integer({ minimum: 1, default: LISTEN_DEFAULTS.maxStreams })),
  /**
   * Listen streams open at once per client: its identity with `auth` (same method, kind, issuer
   * and subject, whatever the token), its remote address without (counted as `maxSessionsPerClient`
   * counts: IPv6 by /64, `trustProxy` behind a proxy; on stdio, the one client). A further one is
   * refused (-32603, `data.limit`). Default 16.
   */
  maxStreamsPerPrincipal: Defaulted(Type.Integer({ minimum: 1, default: LISTEN_DEFAULTS.maxStreamsPerPrincipal })),
  /**
   * URIs one listen request may list in `resourceSubscriptions`; more is refused (-32602). Each URI
   * is bounded by `maxUriBytes` like any URI a client sends. Default 100.
   */
  maxResourceSubscriptions: Defaulted(Type.Integer({ minimum: 0, default: LISTEN_DEFAULTS.maxResourceSubscriptions })),
  /**
   * Bytes of one `subscriptions/listen` request as received (its filter and `_meta`), which the
   * server holds for as long as the stream is open; a larger one is refused (-32602). With
   * `maxStreamsPerPrincipal` and `maxStreams`, this bounds the bytes listen streams hold per client
   * and overall. Default 65536 (64 KiB).
   */
  maxRequestBytes: Defaulted(Type.Integer({ minimum: 1024, default: LISTEN_DEFAULTS.maxRequestBytes }))
}, { ...strict, default: {} })

export const listenProperties = {
  /** Bounds of `subscriptions/listen` streams (MCP 2026-07-28); every field has a default. */
  listen: Defaulted(ListenOptionsSchema)
}
