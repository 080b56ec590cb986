import { statSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { APP_MIME_TYPE } from '../../protocol/apps.js'
import type { AppPermissions, AppResourceDefinition, ResourceDefinition, ResourceHandler } from '../../protocol/definitions.js'
import { isRecord } from '../../util/is-record.js'
import { checkCsp, invalid } from './csp.js'

const UI_URI = /^ui:\/\/[^\s]+$/
const PERMISSIONS = ['camera', 'microphone', 'geolocation', 'clipboardWrite'] as const
const KEYS = new Set(['uri', 'name', 'title', 'description', 'html', 'file', 'csp', 'permissions', 'domain', 'prefersBorder', 'listed', 'auth'])

/** An app page as the registry takes it: the resource, how it is read, and whether it is listed. */
export interface AppPage {
  definition: ResourceDefinition
  handler: ResourceHandler<string>
  listed: boolean
}

/**
 * Checks an app resource definition and turns it into a resource: MIME type
 * `text/html;profile=mcp-app`, and `_meta.ui` (csp, permissions, domain, prefersBorder) on the
 * `resources/list` entry and on the content `resources/read` returns, where hosts read it.
 */
export function appPageOf (input: AppResourceDefinition): AppPage {
  if (!isRecord(input)) throw invalid('(unnamed)', 'the definition must be an object')
  const uri = input.uri
  if (typeof uri !== 'string' || !UI_URI.test(uri)) throw invalid(JSON.stringify(uri), 'uri must be a ui:// URI, such as ui://weather/dashboard')
  for (const key of Object.keys(input)) {
    if (!KEYS.has(key)) throw invalid(uri, `unknown field ${JSON.stringify(key)}`)
  }
  if (typeof input.name !== 'string' || input.name === '') throw invalid(uri, 'name must be a non-empty string')
  const ui: Record<string, unknown> = {}
  if (input.csp !== undefined) ui.csp = checkCsp(input.csp, uri)
  if (input.permissions !== undefined) ui.permissions = checkPermissions(input.permissions, uri)
  if (input.domain !== undefined) {
    if (typeof input.domain !== 'string' || input.domain === '') throw invalid(uri, 'domain must be a non-empty string')
    ui.domain = input.domain
  }
  if (input.prefersBorder !== undefined) {
    if (typeof input.prefersBorder !== 'boolean') throw invalid(uri, 'prefersBorder must be a boolean')
    ui.prefersBorder = input.prefersBorder
  }
  if (input.listed !== undefined && typeof input.listed !== 'boolean') throw invalid(uri, 'listed must be a boolean')
  const meta = Object.keys(ui).length > 0 ? { ui } : undefined
  const page = pageSource(input, uri)
  const definition: ResourceDefinition = { uri, name: input.name, mimeType: APP_MIME_TYPE }
  if (input.title !== undefined) definition.title = input.title
  if (input.description !== undefined) definition.description = input.description
  if (meta !== undefined) definition._meta = meta
  if (input.auth !== undefined) definition.auth = input.auth
  const handler: ResourceHandler<string> = async (requested) => {
    const text = await page()
    return { contents: [meta === undefined ? { uri: requested, mimeType: APP_MIME_TYPE, text } : { uri: requested, mimeType: APP_MIME_TYPE, text, _meta: meta }] }
  }
  return { definition, handler, listed: input.listed !== false }
}

/** Where the page comes from: the `html` given, or its `file`, read again on every read. */
function pageSource (input: AppResourceDefinition, uri: string): () => Promise<string> {
  const { html, file } = input
  if ((html === undefined) === (file === undefined)) throw invalid(uri, 'give exactly one of html and file')
  if (html !== undefined) {
    if (typeof html !== 'string') throw invalid(uri, 'html must be a string')
    return async () => html
  }
  if (typeof file !== 'string' || file === '') throw invalid(uri, 'file must be a path')
  const path = resolve(file)
  // Checked now, so that a wrong path fails where it was written, not at a host's first read.
  if (statSync(path, { throwIfNoEntry: false })?.isFile() !== true) throw invalid(uri, `file ${path} is not a readable file`)
  return async () => await readFile(path, 'utf8')
}

function checkPermissions (permissions: unknown, uri: string): AppPermissions {
  if (!isRecord(permissions)) throw invalid(uri, 'permissions must be an object such as { clipboardWrite: {} }')
  const checked: AppPermissions = {}
  for (const [key, value] of Object.entries(permissions)) {
    if (!(PERMISSIONS as readonly string[]).includes(key)) throw invalid(uri, `permissions has no ${JSON.stringify(key)}; it takes ${PERMISSIONS.join(', ')}`)
    if (!isRecord(value) || Object.keys(value).length > 0) throw invalid(uri, `permissions.${key} must be {}`)
    checked[key as keyof AppPermissions] = {}
  }
  return checked
}
