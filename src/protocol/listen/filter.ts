import { ErrorCode, McpError } from '../../jsonrpc/errors.js'
import { exceedsBytes } from '../limits.js'
import type { Registry } from '../registry.js'

/** What a `subscriptions/listen` request asks for (MCP 2026-07-28 `SubscriptionFilter`). */
export interface ListenFilter {
  toolsListChanged?: true
  promptsListChanged?: true
  resourcesListChanged?: true
  resourceSubscriptions?: string[]
  /** Tasks extension (SEP-2663): `notifications/tasks` for these tasks. */
  taskIds?: string[]
}

/** The bounds a filter is checked against: `listen.maxResourceSubscriptions`, and `maxUriBytes` as for every URI a client sends. */
export interface FilterLimits {
  maxResourceSubscriptions: number
  maxUriBytes: number
  /** Task ids one stream may list: a principal cannot own more tasks than `tasks.maxTasksPerPrincipal`. */
  maxTaskIds: number
}

/** Task ids are server-issued UUIDs; anything longer than the longest id `tasks/get` accepts names no task. */
const MAX_TASK_ID_LENGTH = 128

const FLAGS = ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged'] as const
/** An absolute URI starts with a scheme; the registry demands the same of resources. */
const ABSOLUTE_URI = /^[A-Za-z][A-Za-z0-9+.-]*:/

/** `bound`: the option a filter past it met, named in `data.limit` (and counted) as every bound is. */
function invalid (message: string, bound?: { limit: string, max: number }): McpError {
  return new McpError(ErrorCode.InvalidParams, `Invalid params: ${message}`, bound)
}

/**
 * Reads `params.notifications`. A malformed filter is refused with -32602
 * naming the first bad field; a filter over the bounds likewise (the client
 * learns the bound from the message and can split its subscriptions). Fields
 * this revision does not define are ignored: the acknowledgement, which lists
 * only what is honoured, tells the client. `false` equals absent.
 */
export function parseListenFilter (params: Record<string, unknown>, limits: FilterLimits): ListenFilter {
  const raw = params.notifications
  if (raw === undefined) throw invalid('params.notifications is required')
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw invalid('params.notifications must be an object')
  const given = raw as Record<string, unknown>
  const filter: ListenFilter = {}
  for (const flag of FLAGS) {
    const value = given[flag]
    if (value === undefined) continue
    if (typeof value !== 'boolean') throw invalid(`params.notifications.${flag} must be a boolean`)
    if (value) filter[flag] = true
  }
  const uris = given.resourceSubscriptions
  if (uris !== undefined) {
    if (!Array.isArray(uris)) throw invalid('params.notifications.resourceSubscriptions must be an array of URIs')
    if (uris.length > limits.maxResourceSubscriptions) {
      throw invalid(`params.notifications.resourceSubscriptions lists ${uris.length} URIs; at most ${limits.maxResourceSubscriptions} are accepted per stream`, { limit: 'listen.maxResourceSubscriptions', max: limits.maxResourceSubscriptions })
    }
    const unique = new Set<string>()
    for (const [index, uri] of uris.entries()) {
      const where = `params.notifications.resourceSubscriptions[${index}]`
      if (typeof uri !== 'string' || !ABSOLUTE_URI.test(uri)) throw invalid(`${where} must be an absolute URI`)
      if (exceedsBytes(uri, limits.maxUriBytes)) throw invalid(`${where} is longer than ${limits.maxUriBytes} bytes`, { limit: 'maxUriBytes', max: limits.maxUriBytes })
      unique.add(uri)
    }
    if (unique.size > 0) filter.resourceSubscriptions = [...unique]
  }
  const taskIds = given.taskIds
  if (taskIds !== undefined) {
    if (!Array.isArray(taskIds)) throw invalid('params.notifications.taskIds must be an array of task ids')
    if (taskIds.length > limits.maxTaskIds) {
      throw invalid(`params.notifications.taskIds lists ${taskIds.length} tasks; at most ${limits.maxTaskIds} are accepted per stream`)
    }
    for (const [index, id] of taskIds.entries()) {
      if (typeof id !== 'string' || id === '' || id.length > MAX_TASK_ID_LENGTH) {
        throw invalid(`params.notifications.taskIds[${index}] must be a task id (1 to ${MAX_TASK_ID_LENGTH} characters)`)
      }
    }
    filter.taskIds = [...new Set(taskIds as string[])]
  }
  return filter
}

/**
 * The part of a filter this server honours, as the capabilities advertise it
 * (`server/discover`, `initialize`): a list flag when the registry offers
 * that kind at all (the revision's own example leaves `promptsListChanged`
 * out for a server without prompts), and the resource URIs that a registered
 * resource or template serves. What is not honoured is left out rather than
 * refused, as the revision asks: the acknowledgement shows the client what it
 * will get (an unknown URI, which `resources/subscribe` refused on a 2025
 * session, is simply not in it).
 */
export function honouredFilter (filter: ListenFilter, registry: Registry): ListenFilter {
  const honoured: ListenFilter = {}
  if (filter.toolsListChanged === true && registry.tools.size > 0) honoured.toolsListChanged = true
  if (filter.promptsListChanged === true && registry.prompts.size > 0) honoured.promptsListChanged = true
  const hasResources = registry.resources.size > 0 || registry.templates.size > 0
  if (filter.resourcesListChanged === true && hasResources) honoured.resourcesListChanged = true
  const served = (filter.resourceSubscriptions ?? []).filter((uri) => registry.findResource(uri) !== undefined)
  if (served.length > 0) honoured.resourceSubscriptions = served
  // taskIds are honoured by the listen method, which knows the caller and the task store.
  return honoured
}

/** True when the filter asks for nothing: the stream would never carry a notification. */
export function isEmptyFilter (filter: ListenFilter): boolean {
  return Object.keys(filter).length === 0
}
