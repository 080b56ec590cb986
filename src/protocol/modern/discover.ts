import { capabilitiesOf } from '../methods/lifecycle.js'
import type { MethodEnv, MethodHandler } from '../methods/types.js'
import { taskExtensionCapabilities } from '../tasks/capability.js'

/**
 * The capabilities a 2026-07-28 client is told about: what the registry
 * offers, as a 2025 client is told in `initialize`. `listChanged` and
 * `resources.subscribe` promise what `subscriptions/listen` delivers (the
 * list changes and the resource updates a listen filter may ask for).
 */
export function modernCapabilities (registry: MethodEnv['registry']): Record<string, unknown> {
  const capabilities = capabilitiesOf(registry)
  const extensions = { ...capabilities.extensions as Record<string, unknown> | undefined, ...taskExtensionCapabilities(registry) }
  if (Object.keys(extensions).length > 0) capabilities.extensions = extensions
  return capabilities
}

/**
 * `server/discover` (MUST in 2026-07-28): the versions served, legacy ones
 * included so that a dual-era client can choose, the capabilities and the
 * instructions. Identity and caching fields are added by the result shaping.
 */
export const discover: MethodHandler = (_params, { registry, server }) => {
  const result: Record<string, unknown> = {
    supportedVersions: [...server.modern.supportedVersions],
    capabilities: modernCapabilities(registry)
  }
  if (server.instructions !== undefined) result.instructions = server.instructions
  return result
}
