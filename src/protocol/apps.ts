import { isRecord } from '../util/is-record.js'

// What the core knows of MCP Apps (`io.modelcontextprotocol/ui`, ext-apps
// `specification/2026-01-26/apps.mdx`): enough to tell a handler whether its client renders apps.
// The rest of the extension lives in src/extensions/apps/, which reads these from here.

/** The extension's identifier, in `capabilities.extensions` on both sides. */
export const APPS_EXTENSION = 'io.modelcontextprotocol/ui'
/** The MIME type of an app's HTML page. */
export const APP_MIME_TYPE = 'text/html;profile=mcp-app'

/**
 * Whether a client's capabilities (from `initialize`, or a 2026-07-28 request's `_meta`) declare
 * MCP Apps with the HTML profile among its `mimeTypes`: `ctx.appsSupported`.
 */
export function clientSupportsApps (capabilities: Record<string, unknown>): boolean {
  const extensions = capabilities.extensions
  if (!isRecord(extensions)) return false
  const apps = extensions[APPS_EXTENSION]
  return isRecord(apps) && Array.isArray(apps.mimeTypes) && apps.mimeTypes.includes(APP_MIME_TYPE)
}
