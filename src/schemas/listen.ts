import { Type } from '@sinclair/typebox'
import { LISTEN_DEFAULTS } from '../protocol/listen/hub.js'
import { Defaulted, strict } from './engine/schema.js'

/** Bounds of MCP 2026-07-28 `subscriptions/listen` streams (on every transport). */
const ListenOptionsSchema = Type.Object({
  /** Listen streams open at once on this server; a further `subscriptions/listen` is refused (-32603). Default 10000. */
  maxStreams: Defaulted(Type.Integer({ minimum: 1, default: LISTEN_DEFAULTS.maxStreams })),
  /**
   * Listen streams open at once per authenticated principal (same auth method and subject); a
   * further one is refused (-32603). Unauthenticated callers share `maxStreams` only. Default 16.
   */
  maxStreamsPerPrincipal: Defaulted(Type.Integer({ minimum: 1, default: LISTEN_DEFAULTS.maxStreamsPerPrincipal })),
  /**
   * URIs one listen request may list in `resourceSubscriptions`; more is refused (-32602). Each URI
   * is bounded by `maxUriBytes` like any URI a client sends. Default 100.
   */
  maxResourceSubscriptions: Defaulted(Type.Integer({ minimum: 0, default: LISTEN_DEFAULTS.maxResourceSubscriptions }))
}, { ...strict, default: {} })

export const listenProperties = {
  /** Bounds of `subscriptions/listen` streams (MCP 2026-07-28); every field has a default. */
  listen: Defaulted(ListenOptionsSchema)
}
