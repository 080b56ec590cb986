import type { ResourceContents, ResourceResult } from '../definitions.js'
import { ErrorCode, McpError } from '../../jsonrpc/errors.js'
import { paginate } from '../pagination.js'
import { shapeDescriptor } from '../../jsonrpc/versions.js'
import type { Session } from '../session.js'
import { requireUri, type MethodHandler } from './types.js'
import { shallowCopy } from '../../util/shallow-copy.js'

export const listResources: MethodHandler = (params, { registry, session, server }) => {
  const { page, nextCursor } = paginate(registry.listedResources(), params.cursor, server.pageSize)
  const resources = page.map((resource) => shapeDescriptor(resource.wire, session.protocolVersion as string))
  return nextCursor === undefined ? { resources } : { resources, nextCursor }
}

export const listResourceTemplates: MethodHandler = (params, { registry, session, server }) => {
  const { page, nextCursor } = paginate(registry.templates.values(), params.cursor, server.pageSize)
  const resourceTemplates = page.map((template) => shapeDescriptor(template.wire, session.protocolVersion as string))
  return nextCursor === undefined ? { resourceTemplates } : { resourceTemplates, nextCursor }
}

/** -32002 on the legacy revisions; 2026-07-28 (SEP-2164) made it -32602 and forbids -32002. */
function notFound (uri: string, session: Session): McpError {
  const code = session.generation === 'modern' ? ErrorCode.InvalidParams : ErrorCode.ResourceNotFound
  return new McpError(code, 'Resource not found', { uri: uri.slice(0, 2048) })
}

export const readResource: MethodHandler = async (params, { registry, ctx, limits, session }) => {
  const uri = requireUri(params, 'uri', limits)
  const found = registry.findResource(uri)
  if (found === undefined) throw notFound(uri, session)
  ctx.params = found.params
  const result: ResourceResult = await found.resource.handler(uri, ctx as never)
  if (typeof result !== 'object' || result === null || !Array.isArray(result.contents)) {
    throw new McpError(ErrorCode.InternalError, 'The resource handler returned no contents array')
  }
  const shaped = shallowCopy(result)
  shaped.contents = result.contents.map((item) => normalizeContents(item, uri, found.resource.wire.mimeType))
  return shaped
}

/** Fills the URI and MIME type a handler left out and base64-encodes binary data. */
function normalizeContents (item: ResourceContents, requestedUri: string, mimeType: unknown): Record<string, unknown> {
  const normalized = shallowCopy(item)
  if (typeof item.uri !== 'string') normalized.uri = requestedUri
  if (item.mimeType === undefined && typeof mimeType === 'string') normalized.mimeType = mimeType
  if ('blob' in item) {
    if (item.blob instanceof Uint8Array) normalized.blob = Buffer.from(item.blob.buffer, item.blob.byteOffset, item.blob.byteLength).toString('base64')
    else if (typeof item.blob !== 'string') throw new McpError(ErrorCode.InternalError, 'Resource blob must be a base64 string or a Uint8Array')
  } else if (typeof (item as { text?: unknown }).text !== 'string') {
    throw new McpError(ErrorCode.InternalError, 'Resource contents need text or blob')
  }
  return normalized
}

export const subscribe: MethodHandler = (params, { registry, session, limits }) => {
  const uri = requireUri(params, 'uri', limits)
  if (registry.findResource(uri) === undefined) throw notFound(uri, session)
  const max = limits.maxSubscriptions
  if (session.subscriptions.size >= max && !session.subscriptions.has(uri)) {
    throw new McpError(ErrorCode.InvalidRequest, `this session holds ${max} subscriptions (maxSubscriptions); unsubscribe first`, { maxSubscriptions: max, limit: 'maxSubscriptions', max })
  }
  session.subscriptions.add(uri)
  return {}
}

export const unsubscribe: MethodHandler = (params, { session, limits }) => {
  session.subscriptions.delete(requireUri(params, 'uri', limits))
  return {}
}
