import type { Attributes } from '@opentelemetry/api'
import {
  ATTR_CLIENT_ADDRESS, ATTR_CLIENT_PORT, ATTR_NETWORK_PROTOCOL_NAME, ATTR_NETWORK_PROTOCOL_VERSION,
  ATTR_NETWORK_TRANSPORT
} from './names.js'

/**
 * What a transport knows of the peer that sent a message: an HTTP request (Node's
 * `IncomingMessage` fits as it is, so the transports hand over `request.raw` and allocate
 * nothing), or nothing at all on stdio. Structural, so the protocol layer stays free of HTTP.
 */
export interface NetworkPeer {
  readonly httpVersion: string
  readonly socket: { readonly remoteAddress?: string | undefined, readonly remotePort?: number | undefined } | null
}

/**
 * The conventions' "Recording MCP transport" table: stdio is `pipe`; Streamable HTTP and legacy
 * SSE are `tcp` + `http` + the HTTP version (the protocol version tells the two apart).
 * `client.*` only on spans: a client address on a metric would be one series per client.
 */
export function setNetwork (target: Attributes, peer: NetworkPeer | undefined, withClient: boolean): void {
  if (peer === undefined) {
    target[ATTR_NETWORK_TRANSPORT] = 'pipe'
    return
  }
  target[ATTR_NETWORK_TRANSPORT] = 'tcp'
  target[ATTR_NETWORK_PROTOCOL_NAME] = 'http'
  target[ATTR_NETWORK_PROTOCOL_VERSION] = peer.httpVersion
  if (!withClient) return
  const socket = peer.socket
  if (socket?.remoteAddress !== undefined) {
    target[ATTR_CLIENT_ADDRESS] = socket.remoteAddress
    if (socket.remotePort !== undefined) target[ATTR_CLIENT_PORT] = socket.remotePort
  }
}
