import { STATUS_CODES } from 'node:http'
import type { ContentBlock, ToolResult } from '../protocol/definitions.js'

/** What the tool needs of `inject()`'s answer. */
export interface RouteResponse {
  readonly statusCode: number
  readonly headers: Readonly<Record<string, string | string[] | number | undefined>>
  /** The body as UTF-8 text. */
  readonly payload: string
  /** The body's bytes. */
  readonly rawPayload: Buffer
}

/**
 * A route's answer as a tool result:
 * - 2xx JSON: `structuredContent` (the parsed body) and a text block (the body as sent);
 * - 2xx text (`text/*`, XML, form data...): a text block; images and audio: an image or audio
 *   block; any other type: an embedded resource holding the bytes (`blob`); no body: a text
 *   block with the status (`204 No Content`);
 * - 3xx and 4xx: `isError`, the status and the route's body, so the model can read why (a 3xx
 *   names its `location`: nothing follows redirects here);
 * - 5xx: `isError` with the status only: the body of a failure may hold internals.
 */
export function toToolResult (response: RouteResponse, resourceUri: () => string): ToolResult {
  const status = response.statusCode
  const line = `${status} ${STATUS_CODES[status] ?? 'Unknown Status'}`
  if (status >= 500) return { content: [{ type: 'text', text: line }], isError: true }
  if (status >= 300 || status < 200) {
    const location = response.headers.location
    const detail = status < 400 && typeof location === 'string' ? ` (location: ${location})` : ''
    return { content: [{ type: 'text', text: response.payload === '' ? `${line}${detail}` : `${line}${detail}: ${response.payload}` }], isError: true }
  }
  if (response.rawPayload.length === 0) return { content: [{ type: 'text', text: line }] }
  const contentType = headerText(response.headers['content-type'])
  const mimeType = (contentType.split(';')[0] as string).trim().toLowerCase()
  if (isJson(mimeType)) {
    try {
      return { content: [{ type: 'text', text: response.payload }], structuredContent: JSON.parse(response.payload) as unknown }
    } catch {
      // Said to be JSON, and is not: what came is still the answer.
      return { content: [{ type: 'text', text: response.payload }] }
    }
  }
  return { content: [blockOf(mimeType, response, resourceUri)] }
}

function blockOf (mimeType: string, response: RouteResponse, resourceUri: () => string): ContentBlock {
  if (mimeType === '' || isText(mimeType)) return { type: 'text', text: response.payload }
  const data = response.rawPayload.toString('base64')
  if (mimeType.startsWith('image/')) return { type: 'image', data, mimeType }
  if (mimeType.startsWith('audio/')) return { type: 'audio', data, mimeType }
  return { type: 'resource', resource: { uri: resourceUri(), mimeType, blob: data } }
}

function headerText (value: string | string[] | number | undefined): string {
  return value === undefined ? '' : Array.isArray(value) ? value.join(', ') : String(value)
}

function isJson (mimeType: string): boolean {
  return mimeType === 'application/json' || mimeType.endsWith('+json')
}

const TEXT_TYPES: ReadonlySet<string> = new Set([
  'application/xml', 'application/javascript', 'application/ecmascript', 'application/x-www-form-urlencoded',
  'application/yaml', 'application/x-yaml', 'application/toml', 'application/sql', 'application/graphql'
])

function isText (mimeType: string): boolean {
  return mimeType.startsWith('text/') || mimeType.endsWith('+xml') || TEXT_TYPES.has(mimeType)
}
