import type { TSchema } from '@sinclair/typebox'
import type {
  ArgsOf, JsonSchema, PromptArgument, PromptDefinition, PromptHandler, ResourceDefinition, ResourceHandler,
  ToolDefinition, ToolHandler
} from './definitions.js'
import { Dispatcher } from './dispatcher.js'
import type { JsonRpcNotification } from './jsonrpc.js'
import type { ErrorLogger } from './methods/types.js'
import type { ProtocolLimits } from './limits.js'
import type { CacheSettings } from './modern/caching.js'
import type { ProtocolGeneration } from './modern/meta.js'
import type { RequestStateOptions } from './modern/request-state.js'
import { modernSettings, type ModernSettings } from './modern/settings.js'
import { Registry, type Registration } from './registry.js'
import type { Session } from './session.js'
import { TaskManager } from './tasks/manager.js'
import { MemoryTaskStore } from './tasks/memory-store.js'
import { TASK_DEFAULTS, type TaskStore } from './tasks/types.js'

/** The registry API shared by `MCPServer` and `app.mcp`. */
export interface MCPRegistryApi {
  /** Registers a tool; arguments are validated against `inputSchema` before the handler runs. */
  tool: <I extends TSchema | JsonSchema, O extends TSchema | JsonSchema>(definition: ToolDefinition<I, O>, handler: ToolHandler<ArgsOf<I>>) => Registration
  /** Registers a resource at a fixed URI or a URI template (`docs://{path}`). */
  resource: <U extends string>(definition: ResourceDefinition<U>, handler: ResourceHandler<U>) => Registration
  /** Registers a prompt; required arguments are checked before the handler runs. */
  prompt: <const A extends readonly PromptArgument[]>(definition: PromptDefinition<A>, handler: PromptHandler<A>) => Registration
  /** Sends a notification to every initialized session; returns how many it reached. */
  broadcast: (notification: { method: string, params?: Record<string, unknown> }) => number
  /** Tells the sessions subscribed to `uri` that it changed (`notifications/resources/updated`). */
  notifyResourceUpdated: (uri: string) => number
  /** Number of open sessions. */
  readonly sessionCount: number
}

export interface CoreOptions extends Partial<ProtocolLimits> {
  name: string
  version: string
  instructions?: string | undefined
  pageSize: number
  requestTimeoutMs: number
  logger: ErrorLogger
  /** TTL and bounds of tasks; defaults: {@link TASK_DEFAULTS}. */
  tasks?: Partial<Record<keyof typeof TASK_DEFAULTS, number>> | undefined
  /** The app's own task store; default: a {@link MemoryTaskStore} owned (and closed) by the core. */
  taskStore?: TaskStore | undefined
  /** Generations served; default both. */
  protocols?: readonly ProtocolGeneration[] | undefined
  /** Caching hints of modern results; default ttlMs 0, private. */
  cache?: CacheSettings | undefined
  /** `requestState` signing of 2026-07-28 multi-round-trip requests (the `requestState` option). */
  requestState?: RequestStateOptions | undefined
}

/**
 * Everything that is the same on every transport: the registry, the
 * dispatcher and the set of live sessions. Transports add and remove sessions;
 * list changes and broadcasts go out through here.
 */
export class McpCore implements MCPRegistryApi {
  readonly registry = new Registry()
  readonly dispatcher: Dispatcher
  readonly sessions = new Map<string, Session>()
  /** The 2026-07-28 leg's settings: generations served, versions, serverInfo, caching. */
  readonly modern: ModernSettings
  /** Modern requests being answered (each a throwaway session), so that shutdown can abort them. */
  private readonly modernRequests = new Set<Session>()
  /** Tasks started by task-augmented calls, and the `tasks/*` methods. */
  readonly tasks: TaskManager

  constructor (options: CoreOptions) {
    this.modern = modernSettings(options)
    const tasks = { ...TASK_DEFAULTS, ...options.tasks }
    this.tasks = new TaskManager({
      store: options.taskStore ?? new MemoryTaskStore(),
      ownsStore: options.taskStore === undefined,
      ttlMs: tasks.ttlMs,
      pollIntervalMs: tasks.pollIntervalMs,
      limits: { maxTasks: tasks.maxTasks, maxTasksPerOwner: tasks.maxTasksPerPrincipal },
      logger: options.logger
    })
    this.dispatcher = new Dispatcher(this.registry, { ...options, modern: this.modern, tasks: this.tasks })
    this.registry.onChange((kind) => { this.broadcast({ method: `notifications/${kind}/list_changed` }) })
  }

  get sessionCount (): number {
    return this.sessions.size
  }

  /**
   * Tracks a modern request's throwaway session while it is answered (not a session: no broadcast,
   * no count), so that shutdown aborts it; the transport calls {@link endModernRequest} after.
   */
  beginModernRequest (session: Session): void {
    this.modernRequests.add(session)
  }

  /** Closes a modern request's session once its answer is out, and forgets it. */
  endModernRequest (session: Session): void {
    this.modernRequests.delete(session)
    session.close('request answered')
  }

  /** Tracks a session until it closes. */
  addSession (session: Session): void {
    this.sessions.set(session.id, session)
    session.onClose(() => { this.sessions.delete(session.id) })
  }

  tool<I extends TSchema | JsonSchema, O extends TSchema | JsonSchema> (definition: ToolDefinition<I, O>, handler: ToolHandler<ArgsOf<I>>): Registration {
    return this.registry.tool(definition, handler)
  }

  resource<U extends string> (definition: ResourceDefinition<U>, handler: ResourceHandler<U>): Registration {
    return this.registry.resource(definition, handler)
  }

  prompt<const A extends readonly PromptArgument[]> (definition: PromptDefinition<A>, handler: PromptHandler<A>): Registration {
    return this.registry.prompt(definition, handler)
  }

  broadcast (notification: { method: string, params?: Record<string, unknown> }): number {
    const message: JsonRpcNotification = notification.params === undefined
      ? { jsonrpc: '2.0', method: notification.method }
      : { jsonrpc: '2.0', method: notification.method, params: notification.params }
    // Serialized once for all sessions: a broadcast to 10,000 clients must not stringify 10,000 times.
    const json = JSON.stringify(message)
    let reached = 0
    for (const session of this.sessions.values()) {
      if (session.state !== 'ready') continue
      session.sendSerialized(json, message)
      reached++
    }
    return reached
  }

  notifyResourceUpdated (uri: string): number {
    const message: JsonRpcNotification = { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri } }
    let reached = 0
    for (const session of this.sessions.values()) {
      if (!session.subscriptions.has(uri)) continue
      session.send(message)
      reached++
    }
    return reached
  }

  /** Ends every session (server shutdown). */
  closeAllSessions (reason: string): void {
    for (const session of [...this.sessions.values(), ...this.modernRequests]) session.close(reason)
  }
}
