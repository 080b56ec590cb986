import { ErrorCode, McpError } from '../../jsonrpc/errors.js'
import { LOG_LEVELS, type LogLevel } from '../session.js'
import { negotiateVersion } from '../../jsonrpc/versions.js'
import { limitError } from '../limits.js'
import type { MethodHandler, MethodEnv } from './types.js'
import { optionalObject, requireString } from './types.js'

export const initialize: MethodHandler = (params, { session, server, registry, limits }) => {
  if (session.state !== 'new') throw new McpError(ErrorCode.InvalidRequest, 'The session is already initialized')
  const requested = requireString(params, 'protocolVersion')
  const version = negotiateVersion(requested)
  const capabilities = optionalObject(params, 'capabilities') ?? {}
  const clientInfo = optionalObject(params, 'clientInfo')
  // Kept for the session's whole life (and in its record with scaleOut): what a client declares is bounded.
  const declared = Buffer.byteLength(JSON.stringify(capabilities)) + (clientInfo === undefined ? 0 : Buffer.byteLength(JSON.stringify(clientInfo)))
  const max = limits.maxInitializeBytes
  if (declared > max) {
    throw limitError(ErrorCode.InvalidParams, `params.capabilities and params.clientInfo take ${declared} bytes of JSON; at most ${max} are accepted (maxInitializeBytes)`, 'maxInitializeBytes', max)
  }
  session.protocolVersion = version
  session.clientCapabilities = capabilities
  session.clientInfo = clientInfo
  // The client may send requests as soon as it has our answer; waiting for
  // notifications/initialized would race with pipelined requests.
  session.state = 'ready'
  const result: Record<string, unknown> = {
    protocolVersion: version,
    capabilities: capabilitiesOf(registry),
    serverInfo: { name: server.name, version: server.version }
  }
  if (server.instructions !== undefined) result.instructions = server.instructions
  return result
}

/**
 * Capabilities reflect what is registered when the client connects, extensions included (SEP-2133:
 * `capabilities.extensions`, on 2025-11-25 too).
 */
export function capabilitiesOf (registry: MethodEnv['registry']): Record<string, unknown> {
  const capabilities: Record<string, unknown> = { logging: {} }
  if (registry.tools.size > 0) capabilities.tools = { listChanged: true }
  if (registry.resources.size > 0 || registry.templates.size > 0) capabilities.resources = { subscribe: true, listChanged: true }
  if (registry.prompts.size > 0) capabilities.prompts = { listChanged: true }
  if (hasCompleters(registry)) capabilities.completions = {}
  const extensions: Record<string, unknown> = {}
  for (const [id, settingsOf] of registry.extensionCapabilities) {
    const settings = settingsOf()
    if (settings !== undefined) extensions[id] = settings
  }
  if (Object.keys(extensions).length > 0) capabilities.extensions = extensions
  return capabilities
}

function hasCompleters (registry: MethodEnv['registry']): boolean {
  for (const prompt of registry.prompts.values()) if (prompt.completers.size > 0) return true
  for (const template of registry.templates.values()) if (template.completers.size > 0) return true
  return false
}

export const ping: MethodHandler = () => ({})

export const setLevel: MethodHandler = (params, { session }) => {
  const level = params.level
  if (!(LOG_LEVELS as readonly unknown[]).includes(level)) {
    throw new McpError(ErrorCode.InvalidParams, `params.level must be one of ${LOG_LEVELS.join(', ')}`)
  }
  session.logLevel = level as LogLevel
  return {}
}
