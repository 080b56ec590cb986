import { APPS_EXTENSION } from '../../protocol/apps.js'
import type { AppResourceDefinition } from '../../protocol/definitions.js'
import type { ProtocolExtension } from '../../protocol/extension.js'
import type { Registration, Registry } from '../../protocol/registry.js'
import { appPageOf } from './resource.js'
import { linkTool, verifyLinks } from './tool-link.js'

/**
 * MCP Apps (`io.modelcontextprotocol/ui`, SEP-1865, ext-apps `specification/2026-01-26/apps.mdx`):
 * app pages as `ui://` resources, tools linked to them, the extension declared while a page is
 * registered, and every link checked when the server starts.
 */
export class AppsExtension implements ProtocolExtension {
  readonly id = APPS_EXTENSION
  readonly shapeTool = linkTool
  private readonly registry: Registry
  private pages = 0

  constructor (registry: Registry) {
    this.registry = registry
  }

  // The spec defines no server settings: an empty object declares the extension.
  readonly capability = (): Record<string, unknown> | undefined => this.pages > 0 ? {} : undefined

  readonly verify = (): void => { verifyLinks(this.registry) }

  appResource (definition: AppResourceDefinition): Registration {
    const page = appPageOf(definition)
    const registration = this.registry.resource(page.definition, page.handler, { listed: page.listed })
    this.pages++
    let removed = false
    return {
      remove: () => {
        if (removed) return
        removed = true
        this.pages--
        registration.remove()
      }
    }
  }
}
