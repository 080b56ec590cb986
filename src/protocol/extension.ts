import type { AppResourceDefinition, SkillDefinition } from './definitions.js'
import type { MethodHandler } from './methods/types.js'
import type { Registration, Registry, ToolShaper } from './registry.js'

/**
 * An extension of the protocol (MCP Apps and Skills, in src/extensions/) as the transport-free
 * core sees it. The core imports no extension: the entry points build them over the core's
 * registry (`CoreOptions.extensions`), and the core installs what each one contributes.
 */
export interface ProtocolExtension {
  /** The extension's identifier: the key of its entry in `capabilities.extensions`. */
  readonly id: string
  /** Its settings in `capabilities.extensions`, on both generations; undefined while it offers nothing. */
  readonly capability: () => Record<string, unknown> | undefined
  /** Handlers of the methods it serves, by name; each has its row in the method table. */
  readonly methods?: Readonly<Record<string, MethodHandler>>
  /** Completes every tool's wire form from the definition fields the extension owns. */
  readonly shapeTool?: ToolShaper
  /**
   * Checks what was registered, once registration is over (when the server starts); throws a
   * coded error naming the definition at fault.
   */
  readonly verify?: () => void
}

/** The registration calls the extensions add to the registry API (`MCPRegistryApi`). */
export interface ExtensionRegistrations {
  appResource: (definition: AppResourceDefinition) => Registration
  skill: (definition: SkillDefinition) => Registration
  skills: (parentDir: string) => Registration
}

/** What the entry points give `ProtocolServer`: the extensions built over its registry. */
export type ExtensionsFactory = (registry: Registry) => {
  extensions: readonly ProtocolExtension[]
  registrations: ExtensionRegistrations
}
