import type { Registry } from '../registry.js'
import { TASKS_EXTENSION } from './types.js'

/**
 * The server's entries for `capabilities.extensions` (2026-07-28 `server/discover`):
 * the Tasks extension once at least one registered tool may run as a task.
 * Merged by whoever builds the capabilities object.
 */
export function taskExtensionCapabilities (registry: Registry): Record<string, Record<string, unknown>> {
  for (const tool of registry.tools.values()) {
    if (tool.taskSupport !== 'forbidden') return { [TASKS_EXTENSION]: {} }
  }
  return {}
}
