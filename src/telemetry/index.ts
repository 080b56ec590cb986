export { Telemetry, type TelemetrySettings, type TelemetrySource } from './telemetry.js'
export { ServerOperation, NOOP_SPAN } from './operation.js'
export { tracedClientRequest } from './client.js'
export type { NetworkPeer } from './network.js'
