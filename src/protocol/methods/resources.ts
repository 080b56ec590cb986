import type { ResourceContents, ResourceResult } from '../definitions.js'
import { ErrorCode, McpError } from '../../jsonrpc/errors.js'
import { listPage, privateOnModern } from '../authz/lists.js'
import { shapeDescriptor } from '../../jsonrpc/versions.js'
import type { Session } from '../session.js'
import type { Registry } from '../registry.js'
import { requireUri, type MethodEnv, type MethodHandler } from './types.js'
import { shallowCopy } from '../../util/shallow-copy.js'

export const listResources: MethodHandler = (params, env) => listPage('resources', env.registry.listedResources(), params, env, (page, nextCursor) => {
  const resources = page.map((resource) => shapeDescriptor(resource.wire, env.session.protocolVersion as string))
  return nextCursor === undefined ? { resources } : { resources, nextCursor }
})

export const listResourceTemplates: MethodHandler = (params, env) => listPage('resources', env.registry.templates.values(), params, env, (page, nextCursor) => {
  const resourceTemplates = page.map((template) => shapeDescriptor(template.wire, env.session.protocolVersion as string))
  return nextCursor === undefined ? { resourceTemplates } : { resourceTemplates, nextCursor }
})

/** -32002 on the legacy revisions; 2026-07-28 (SEP-2164) made it -32602 and forbids -32002. */
function notFound (uri: string, session: Session): McpError {
  const code = session.generation === 'modern' ? ErrorCode.InvalidParams : ErrorCode.ResourceNotFound
  return new McpError(code, 'Resource not found', { uri: uri.slice(0, 2048) })
}

/**
 * The resource `uri` names, when this caller may use it: a resource hidden from the caller by its
 * rule is not found, exactly as one that does not exist; missing scopes throw -32005.
 */
async function reachable (uri: string, { registry, access }: MethodEnv): Promise<ReturnType<Registry['findResource']>> {
  const found = registry.findResource(uri)
  if (found === undefined) return undefined
  const reach = access.reach(found.resource)
  return reach === true || await reach ? found : undefined
}

export const readResource: MethodHandler = async (params, env) => {
  const { ctx, limits, session } = env
  const uri = requireUri(params, 'uri', limits)
  const found = env.access.gated ? await reachable(uri, env) : env.registry.findResource(uri)
  if (found === undefined) throw notFound(uri, session)
  ctx.params = found.params
  const result: ResourceResult = await found.resource.handler(uri, ctx as never)
  if (typeof result !== 'object' || result === null || !Array.isArray(result.contents)) {
    throw new McpError(ErrorCode.InternalError, 'The resource handler returned no contents array')
  }
  const shaped = shallowCopy(result)
  shaped.contents = result.contents.map((item) => normalizeContents(item, uri, found.resource.wire.mimeType))
  // Whether it is served depends on who asks: a shared cache must not serve it to anyone else.
  return env.registry.ruleOf(found.resource) === undefined ? shaped : privateOnModern(shaped, env)
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

export const subscribe: MethodHandler = async (params, env) => {
  const { session, limits } = env
  const uri = requireUri(params, 'uri', limits)
  if (await reachable(uri, env) === undefined) throw notFound(uri, session)
  const max = limits.maxSubscriptions
  if (session.subscriptions.size >= max && !session.subscriptions.has(uri)) {
    throw new McpError(ErrorCode.InvalidRequest, `this session holds ${max} subscriptions (maxSubscriptions); unsubscribe first`, { maxSubscriptions: max, limit: 'maxSubscriptions', max })
  }
  // Counted against the client that opened the session; a copy rebuilt on another instance has none: the caller's.
  env.subscriptionBytes.subscribe(session, session.client ?? env.caller.client, uri)
  return {}
}

export const unsubscribe: MethodHandler = (params, { session, limits, subscriptionBytes }) => {
  subscriptionBytes.unsubscribe(session, requireUri(params, 'uri', limits))
  return {}
}
