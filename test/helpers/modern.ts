// Raw MCP 2026-07-28 requests, for tests that look at what clients hide: statuses, headers, each rung
// of the validation ladder.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'

export const MODERN = '2026-07-28'

/** The `_meta` every modern request carries; `extra` adds or overrides keys. */
export function meta (extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientInfo': { name: 'tap-raw', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': {},
    ...extra
  }
}

/** A modern request body: `params._meta` from {@link meta} unless `params` brings its own. */
export function modern (id: number | string, method: string, params: Record<string, unknown> = {}, metaExtra: Record<string, unknown> = {}): Record<string, unknown> {
  return { jsonrpc: '2.0', id, method, params: { _meta: meta(metaExtra), ...params } }
}

const NAME_SOURCE: Record<string, string> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId'
}

/** The headers a conforming client sends for `body` (SEP-2243); `overrides` replace or (undefined) drop some. */
export function headersFor (body: Record<string, unknown>, overrides: Record<string, string | undefined> = {}): Record<string, string> {
  const params = (body.params ?? {}) as Record<string, unknown>
  const headers: Record<string, string | undefined> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN,
    'mcp-method': String(body.method)
  }
  const source = Object.hasOwn(NAME_SOURCE, String(body.method)) ? NAME_SOURCE[String(body.method)] : undefined
  if (source !== undefined && typeof params[source] === 'string') headers['mcp-name'] = params[source] as string
  for (const [name, value] of Object.entries(overrides)) headers[name.toLowerCase()] = value
  return Object.fromEntries(Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== undefined))
}

/** `=?base64?…?=`, the header form of values that are not plain ASCII. */
export const base64Header = (value: string): string => `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`

/** The JSON-RPC messages of an SSE body, in order. */
export function sseMessages (body: string): any[] {
  return body.split('\n\n').flatMap((frame) => frame.split('\n').filter((line) => line.startsWith('data: ')).map((line) => JSON.parse(line.slice(6))))
}

export interface ModernAnswer {
  status: number
  headers: Headers
  /** The JSON-RPC answer: the body, or the last message of an event stream. */
  body: any
}

/** POSTs `body` to `url` with the headers of {@link headersFor}; `headers` add to or override them. */
export async function postModern (url: string, body: Record<string, unknown>, headers: Record<string, string | undefined> = {}): Promise<ModernAnswer> {
  const response = await fetch(url, { method: 'POST', headers: headersFor(body, headers), body: JSON.stringify(body) })
  const text = await response.text()
  const stream = response.headers.get('content-type')?.includes('text/event-stream') === true
  return { status: response.status, headers: response.headers, body: stream ? sseMessages(text).pop() : JSON.parse(text) }
}

/** The same through `app.inject`, answered as light-my-request does. */
export async function injectModern (app: FastifyInstance, body: Record<string, unknown>, headers: Record<string, string | undefined> = {}): Promise<LightMyRequestResponse> {
  return await app.inject({ method: 'POST', url: '/mcp', headers: headersFor(body, headers), payload: body })
}
