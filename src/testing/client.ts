import { setTimeout as sleep } from 'node:timers/promises'
import { ErrorCode, McpError } from '../jsonrpc/errors.js'
import type { JsonRpcNotification } from '../jsonrpc/messages.js'
import { SUBSCRIPTION_ID_META } from '../protocol/listen/frame.js'
import { TASKS_EXTENSION } from '../protocol/tasks/types.js'
import { isRecord } from '../util/is-record.js'
import { serverInfoOf, type Connection } from './connection.js'
import { ListenQueue } from './listen.js'
import { plain } from './plain.js'
import type {
  CallToolResult, CompleteResult, CompletionReference, DetailedTask, DiscoverResult, GetPromptResult, ListenFilter,
  ListPromptsResult, ListResourcesResult, ListResourceTemplatesResult, ListToolsResult, LogEvent, Notification,
  ProgressEvent, ReadResourceResult, RequestOptions, Subscription, Task, TaskCall, TestProtocolVersion
} from './types.js'

const TASKS = { extensions: { [TASKS_EXTENSION]: {} } }
const LIST_CHANGED: Readonly<Record<string, 'toolsListChanged' | 'promptsListChanged' | 'resourcesListChanged'>> = {
  'notifications/tools/list_changed': 'toolsListChanged',
  'notifications/prompts/list_changed': 'promptsListChanged',
  'notifications/resources/list_changed': 'resourcesListChanged'
}

/** Options of the list methods: a page's cursor, and the request options. */
export interface ListOptions extends RequestOptions { cursor?: string }

/** Options of {@link TestClient.waitForTask}. */
export interface WaitForTaskOptions extends RequestOptions {
  /** How long to wait for the task to end, in ms; default 30000. */
  timeoutMs?: number
}

/**
 * A client for tests, the same on both protocol generations: every method sends one MCP request
 * (2026-07-28 `input_required` rounds and 2025 server requests are answered by the handlers given
 * to `createTestClient`), returns its result without the generation's envelope, and throws the
 * server's errors as `McpError`. What the server sends besides answers is collected in
 * {@link progress}, {@link logs} and {@link notifications}.
 */
export class TestClient {
  /** Every `notifications/progress` received, in order. */
  readonly progress: ProgressEvent[] = []
  /** Every `notifications/message` received, in order. */
  readonly logs: LogEvent[] = []
  /** Every notification received (progress and logs included), in order. */
  readonly notifications: Notification[] = []
  private readonly connection: Connection
  private readonly listens = new Set<{ accepts: (message: Notification) => boolean, queue: ListenQueue }>()
  private eventsOpen: Promise<void> | undefined

  /** @internal Made by `createTestClient`. */
  constructor (connection: Connection) {
    this.connection = connection
  }

  /** The protocol version this client speaks with the server. */
  get protocolVersion (): TestProtocolVersion {
    return this.connection.protocolVersion as TestProtocolVersion
  }

  /** @internal Called by the connection with every notification. */
  receive (message: JsonRpcNotification): void {
    const notification: Notification = message.params === undefined ? { method: message.method } : { method: message.method, params: message.params }
    this.notifications.push(notification)
    if (message.method === 'notifications/progress' && message.params !== undefined) this.progress.push(message.params as unknown as ProgressEvent)
    if (message.method === 'notifications/message' && message.params !== undefined) this.logs.push(message.params as unknown as LogEvent)
    for (const listen of this.listens) if (listen.accepts(notification)) listen.queue.push(withoutSubscriptionId(notification))
  }

  /** What the server is and offers: `server/discover` on 2026-07-28, the session's `initialize` answer on 2025-11-25. */
  async discover (options: RequestOptions = {}): Promise<DiscoverResult> {
    const { generation, initializeResult } = this.connection
    const result = generation === 'modern' ? await this.connection.call('server/discover', {}, options) : initializeResult ?? {}
    const found: Record<string, unknown> = {
      protocolVersion: this.connection.protocolVersion,
      supportedVersions: generation === 'modern' ? result.supportedVersions : [this.connection.protocolVersion],
      serverInfo: generation === 'modern' ? serverInfoOf(result) : result.serverInfo,
      capabilities: result.capabilities
    }
    if (typeof result.instructions === 'string') found.instructions = result.instructions
    return found as unknown as DiscoverResult
  }

  async listTools (options: ListOptions = {}): Promise<ListToolsResult> {
    return await this.list('tools/list', options) as unknown as ListToolsResult
  }

  /** Calls a tool. A tool's own failure is a result with `isError: true`, not a throw (MCP). */
  async callTool<S = unknown>(name: string, args: Record<string, unknown> = {}, options: RequestOptions = {}): Promise<CallToolResult<S>> {
    return plain(await this.connection.call('tools/call', { name, arguments: args }, options)) as unknown as CallToolResult<S>
  }

  async listPrompts (options: ListOptions = {}): Promise<ListPromptsResult> {
    return await this.list('prompts/list', options) as unknown as ListPromptsResult
  }

  async getPrompt (name: string, args: Record<string, string> = {}, options: RequestOptions = {}): Promise<GetPromptResult> {
    return plain(await this.connection.call('prompts/get', { name, arguments: args }, options)) as unknown as GetPromptResult
  }

  async listResources (options: ListOptions = {}): Promise<ListResourcesResult> {
    return await this.list('resources/list', options) as unknown as ListResourcesResult
  }

  async listResourceTemplates (options: ListOptions = {}): Promise<ListResourceTemplatesResult> {
    return await this.list('resources/templates/list', options) as unknown as ListResourceTemplatesResult
  }

  async readResource (uri: string, options: RequestOptions = {}): Promise<ReadResourceResult> {
    return plain(await this.connection.call('resources/read', { uri }, options), true) as unknown as ReadResourceResult
  }

  /** `completion/complete`: suggestions for one argument of a prompt or a resource template. */
  async complete (ref: CompletionReference, argument: { name: string, value: string }, context?: { arguments: Record<string, string> }, options: RequestOptions = {}): Promise<CompleteResult> {
    const params: Record<string, unknown> = { ref, argument }
    if (context !== undefined) params.context = context
    return plain(await this.connection.call('completion/complete', params, options)) as unknown as CompleteResult
  }

  /**
   * Listens for changes: a `subscriptions/listen` stream on 2026-07-28; on 2025-11-25 the same
   * changes heard on the session (`resources/subscribe` for the URIs, the list flags as the
   * server's capabilities promise them). Resolves once the server acknowledged the filter.
   */
  async listen (filter: ListenFilter): Promise<Subscription> {
    return this.connection.generation === 'modern' ? await this.listenModern(filter) : await this.listenLegacy(filter)
  }

  /** Calls a tool as a task (Tasks extension, 2026-07-28): the task, or the result of a tool that finished in the call. */
  async callToolAsTask (name: string, args: Record<string, unknown> = {}, options: RequestOptions = {}): Promise<TaskCall> {
    this.requireTasks('callToolAsTask')
    const result = await this.connection.call('tools/call', { name, arguments: args }, { ...options, capabilities: TASKS })
    if (result.resultType === 'task') return { task: plain(result) as unknown as Task }
    return { result: plain(result) as unknown as CallToolResult }
  }

  async getTask (taskId: string, options: RequestOptions = {}): Promise<DetailedTask> {
    this.requireTasks('getTask')
    return plain(await this.connection.call('tasks/get', { taskId }, { ...options, capabilities: TASKS })) as unknown as DetailedTask
  }

  async cancelTask (taskId: string, options: RequestOptions = {}): Promise<void> {
    this.requireTasks('cancelTask')
    await this.connection.call('tasks/cancel', { taskId }, { ...options, capabilities: TASKS })
  }

  /**
   * Polls a task until it ends, answering what it asks (`input_required`) with the handlers through
   * `tasks/update`: the tool's result once completed; a failed task throws its error, a cancelled
   * one an McpError saying so.
   */
  async waitForTask (taskId: string, options: WaitForTaskOptions = {}): Promise<CallToolResult> {
    const deadline = Date.now() + (options.timeoutMs ?? 30_000)
    while (true) {
      const task = await this.getTask(taskId, { signal: options.signal })
      if (task.status === 'completed') return plain(task.result ?? {}) as unknown as CallToolResult
      if (task.status === 'failed') throw new McpError(task.error?.code ?? ErrorCode.InternalError, task.error?.message ?? 'The task failed', task.error?.data)
      if (task.status === 'cancelled') throw new McpError(ErrorCode.InvalidRequest, `Task ${taskId} was cancelled`)
      if (task.status === 'input_required') {
        const inputResponses: Record<string, unknown> = {}
        for (const [key, request] of Object.entries(task.inputRequests ?? {})) {
          inputResponses[key] = await this.connection.inbound.request({ jsonrpc: '2.0', id: key, method: request.method, params: request.params ?? {} })
        }
        await this.connection.call('tasks/update', { taskId, inputResponses }, { signal: options.signal, capabilities: TASKS })
        continue
      }
      if (Date.now() >= deadline) throw new McpError(ErrorCode.RequestTimeout, `Task ${taskId} did not end within ${options.timeoutMs ?? 30_000} ms`)
      await sleep(Math.min(task.pollIntervalMs, 1000, Math.max(0, deadline - Date.now())), undefined, { signal: options.signal })
    }
  }

  /** Any request, its result untouched (envelope included): for what the methods above do not cover. */
  async request (method: string, params: Record<string, unknown> = {}, options: RequestOptions = {}): Promise<Record<string, unknown>> {
    return await this.connection.call(method, params, options)
  }

  /** Ends the conversation and releases everything it holds: listens, streams, the session. Idempotent. */
  async close (): Promise<void> {
    await Promise.all([...this.listens].map(async ({ queue }) => { await queue.close() }))
    await this.connection.close()
  }

  private async list (method: string, options: ListOptions): Promise<Record<string, unknown>> {
    const { cursor, ...rest } = options
    return plain(await this.connection.call(method, cursor === undefined ? {} : { cursor }, rest), true)
  }

  private requireTasks (what: string): void {
    if (this.connection.generation !== 'modern') {
      throw new McpError(ErrorCode.MethodNotFound, `${what}: tasks (${TASKS_EXTENSION}) are served on protocol 2026-07-28 only`)
    }
  }

  private async listenModern (filter: ListenFilter): Promise<Subscription> {
    const id = this.connection.newId()
    const controller = new AbortController()
    let done: Promise<unknown> = Promise.resolve()
    const queue = new ListenQueue(async () => {
      controller.abort(new Error('The listen was closed'))
      await done.catch(() => {})
    })
    let acknowledge = (_filter: ListenFilter): void => {}
    const acknowledged = new Promise<ListenFilter>((resolve) => { acknowledge = resolve })
    const entry = {
      queue,
      accepts: (message: Notification): boolean => {
        const meta = message.params?._meta
        if (!isRecord(meta) || meta[SUBSCRIPTION_ID_META] !== id) return false
        if (message.method !== 'notifications/subscriptions/acknowledged') return true
        acknowledge(isRecord(message.params?.notifications) ? message.params.notifications as ListenFilter : {})
        return false
      }
    }
    this.listens.add(entry)
    const options = { id, signal: controller.signal, timeoutMs: 0, ...(filter.taskIds === undefined ? {} : { capabilities: TASKS }) }
    done = this.connection.call('subscriptions/listen', { notifications: filter }, options)
    void done.then(
      () => { queue.end(new Error('The server ended the listen')) },
      (error: Error) => { queue.end(error) }
    ).finally(() => { this.listens.delete(entry) })
    // The acknowledgement comes first; a refused filter (or a server ending at once) settles `done` instead.
    queue.acknowledged = await Promise.race([acknowledged, done.then(() => ({}))])
    return queue
  }

  private async listenLegacy (filter: ListenFilter): Promise<Subscription> {
    const capabilities = (this.connection.initializeResult?.capabilities ?? {}) as Record<string, Record<string, unknown> | undefined>
    const honoured: ListenFilter = {}
    if (filter.toolsListChanged === true && capabilities.tools?.listChanged === true) honoured.toolsListChanged = true
    if (filter.promptsListChanged === true && capabilities.prompts?.listChanged === true) honoured.promptsListChanged = true
    if (filter.resourcesListChanged === true && capabilities.resources?.listChanged === true) honoured.resourcesListChanged = true
    // Unsolicited messages travel on the session's standalone stream (HTTP); stdio carries them anyway.
    this.eventsOpen ??= this.connection.openEvents()
    await this.eventsOpen
    const uris: string[] = []
    for (const uri of filter.resourceSubscriptions ?? []) {
      // A URI the server does not serve is left out, as the 2026-07-28 acknowledgement leaves it out.
      try {
        await this.connection.call('resources/subscribe', { uri })
        uris.push(uri)
      } catch (error) {
        if (!(error instanceof McpError)) throw error
      }
    }
    if (uris.length > 0) honoured.resourceSubscriptions = uris
    const queue = new ListenQueue(async () => {
      this.listens.delete(entry)
      for (const uri of uris) await this.connection.call('resources/unsubscribe', { uri }).catch(() => {})
    })
    const entry = {
      queue,
      accepts: (message: Notification): boolean => {
        const flag = LIST_CHANGED[message.method]
        if (flag !== undefined) return honoured[flag] === true
        return message.method === 'notifications/resources/updated' && uris.includes(String(message.params?.uri))
      }
    }
    queue.acknowledged = honoured
    this.listens.add(entry)
    return queue
  }
}

function withoutSubscriptionId (notification: Notification): Notification {
  const meta = notification.params?._meta
  if (!isRecord(meta) || !(SUBSCRIPTION_ID_META in meta)) return notification
  const { [SUBSCRIPTION_ID_META]: _id, ...rest } = meta
  const params: Record<string, unknown> = { ...notification.params }
  if (Object.keys(rest).length === 0) delete params._meta
  else params._meta = rest
  // A change notification has no params of its own on 2025 sessions: the same shape on both.
  return Object.keys(params).length === 0 ? { method: notification.method } : { method: notification.method, params }
}
