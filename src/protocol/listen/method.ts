import { ErrorCode } from '../../jsonrpc/errors.js'
import { limitError } from '../limits.js'
import { kAfterAnswer, type MethodHandler } from '../methods/types.js'
import { honouredFilter, isEmptyFilter, parseListenFilter } from './filter.js'
import { SUBSCRIPTION_ID_META } from './frame.js'
import { clientDeclaresTasks, missingTasksCapability } from '../tasks/methods.js'
import { ownerKey } from '../tasks/owner.js'

/**
 * `subscriptions/listen` (MCP 2026-07-28 only: see `methods/table.ts`): a request that stays open. The
 * acknowledgement goes out first, then the changes its filter asked for, each
 * stamped with the subscription id (the request id). With the Tasks extension
 * the filter may list `taskIds`: the caller's own tasks among them get
 * `notifications/tasks` on every status change made in this process. The handler's promise
 * settles only when the stream ends:
 *
 * - the client ends it (closes the HTTP stream, or sends `notifications/cancelled`
 *   on stdio): the request is aborted, the stream freed, nothing more is sent;
 * - the server ends it (shutdown, or a filter honouring nothing): the answer is
 *   the `complete` result carrying the subscription id, which the revision
 *   defines as the graceful end. On a channel every request shares (stdio) a
 *   `notifications/cancelled` naming the listen request follows it: the
 *   cancellation page requires one when the server tears a subscription down,
 *   while the subscriptions page asks for the result. Sent in that order, a
 *   client that follows either page sees a graceful end and ignores the other
 *   message (a cancel for a request already answered is to be ignored).
 *   Over HTTP the result ends the request's own stream and nothing follows it.
 */
export const listen: MethodHandler = async (params, { session, ctx, caller, registry, limits, listen: hub, tasks, access }) => {
  // The whole request stays in memory as long as the stream is open: its size is bounded first.
  const maxBytes = hub.limits.maxRequestBytes
  if (caller.bytes > maxBytes) {
    throw limitError(ErrorCode.InvalidParams, `Invalid params: this listen request takes ${caller.bytes} bytes; a listen request, held for as long as its stream is open, may take ${maxBytes} (listen.maxRequestBytes)`, 'listen.maxRequestBytes', maxBytes)
  }
  const bounds = { maxResourceSubscriptions: hub.limits.maxResourceSubscriptions, maxUriBytes: limits.maxUriBytes, maxTaskIds: tasks.maxTasksPerOwner }
  const asked = parseListenFilter(params, bounds)
  const filter = honouredFilter(asked, registry)
  if (access.gated && filter.resourceSubscriptions !== undefined) {
    // Only what the caller may read: a URI it may not is left out, as one nothing serves.
    const readable = await Promise.all(filter.resourceSubscriptions.map(async (uri) => {
      const found = registry.findResource(uri)
      return found !== undefined && await access.shows(found.resource)
    }))
    const kept = filter.resourceSubscriptions.filter((_uri, i) => readable[i])
    if (kept.length > 0) filter.resourceSubscriptions = kept
    else delete filter.resourceSubscriptions
  }
  if (asked.taskIds !== undefined) {
    // SEP-2663: task notifications are for clients that declared the extension (MUST -32021 otherwise).
    if (!clientDeclaresTasks(session)) throw missingTasksCapability('notifications/tasks (params.notifications.taskIds)')
    // Only the caller's own tasks: anyone else's id is left out, exactly as an id that never existed.
    const owned = await tasks.owned(asked.taskIds, ownerKey(ctx.auth))
    if (owned.length > 0) filter.taskIds = owned
  }
  const subscription = hub.open(session, ctx.requestId, filter, caller)
  if (isEmptyFilter(filter)) subscription.finish()
  else if (ctx.aborted) subscription.drop()
  else ctx.signal.addEventListener('abort', () => { subscription.drop() }, { once: true })
  const result = await subscription.ended
  if (result === undefined) {
    // Dropped: the request was aborted, and the dispatcher answers no aborted request.
    subscription.settle()
    return {}
  }
  if (session.multiplexed) {
    const requestId = ctx.requestId
    const cancelled = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: 'the server ended the subscription', _meta: { [SUBSCRIPTION_ID_META]: requestId } } }
    Object.defineProperty(result, kAfterAnswer, { value: [cancelled], enumerable: false })
  }
  // The dispatcher sends the answer (and what follows it) as soon as this promise settles, in this
  // turn of the event loop; the next turn comes after it.
  setImmediate(() => { subscription.settle() })
  return result
}
