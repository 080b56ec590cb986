import type { TSchema } from '@sinclair/typebox'
import { DoorVerdicts } from './authz/access.js'
import { Gate, type Screening } from './authz/gate.js'
import type { Refusal } from './authz/denials.js'
import type { Middleware } from './authz/middleware.js'
import type { AccessRule } from './authz/rules.js'
import { changeEventOf, type ChangeEvent, type ChangeListener, type ChangeRelay, LIST_CHANGED_METHODS, RESOURCE_UPDATED_METHOD } from './changes.js'
import type {
  AppResourceDefinition, ArgsOf, JsonSchema, PromptArgument, PromptDefinition, PromptHandler, ResourceDefinition, ResourceHandler,
  SkillDefinition, ToolDefinition, ToolHandler
} from './definitions.js'
import type { Caller } from './caller.js'
import { Dispatcher } from './dispatcher.js'
import type { ExtensionRegistrations, ExtensionsFactory, ProtocolExtension } from './extension.js'
import type { JsonRpcNotification, JsonRpcRequest } from '../jsonrpc/messages.js'
import { LISTEN_DEFAULTS, ListenHub, type ListenLimits } from './listen/hub.js'
import type { ErrorLogger } from '../util/logger.js'
import { ByteLedger, resolveLimits, type ProtocolLimits } from './limits.js'
import type { CacheSettings } from './modern/caching.js'
import { ModernInflight } from './modern/inflight.js'
import type { ProtocolGeneration } from './modern/meta.js'
import type { RequestStateOptions } from './modern/request-state.js'
import { modernSettings, type ModernSettings } from './modern/settings.js'
import type { MethodHandler } from './methods/types.js'
import { Registry, type Registration } from './registry.js'
import type { Session } from './session.js'
import { TaskManager } from './tasks/manager.js'
import { MemoryTaskStore } from './tasks/memory-store.js'
import { TASK_DEFAULTS, type TaskStore } from './tasks/types.js'
import { Telemetry, type NetworkPeer, type TelemetrySettings } from '../telemetry/index.js'

/** The registry API shared by `MCPServer` and `app.mcp`. */
export interface MCPRegistryApi {
  /** Registers a tool; arguments are validated against `inputSchema` before the handler runs. */
  tool: <I extends TSchema | JsonSchema, O extends TSchema | JsonSchema>(definition: ToolDefinition<I, O>, handler: ToolHandler<ArgsOf<I>>) => Registration
  /** Registers a resource at a fixed URI or a URI template (`docs://{path}`). */
  resource: <U extends string>(definition: ResourceDefinition<U>, handler: ResourceHandler<U>) => Registration
  /** Registers a prompt; required arguments are checked before the handler runs. */
  prompt: <const A extends readonly PromptArgument[]>(definition: PromptDefinition<A>, handler: PromptHandler<A>) => Registration
  /**
   * Adds an operation middleware: `async (op, next) => result`, run around every request and
   * notification from clients, on every transport and both protocol generations, in the order
   * added. See `Middleware`.
   */
  use: (middleware: Middleware) => void
  /**
   * Registers an MCP Apps view: an HTML page at a `ui://` URI that tools link to with `ui`
   * (`io.modelcontextprotocol/ui`). Its URI and CSP origins are checked here; a tool's link to a
   * page missing when the server starts fails the start.
   */
  appResource: (definition: AppResourceDefinition) => Registration
  /**
   * Publishes an agent skill (`io.modelcontextprotocol/skills`): from a folder holding its
   * `SKILL.md` (`{ dir }`) or from memory (`{ name, files }`). Its files are read, bounded and
   * digested here, and served as `skill://<name>/<path>` resources.
   */
  skill: (definition: SkillDefinition) => Registration
  /** Publishes every skill folder (a folder holding a `SKILL.md`) directly under `parentDir`. */
  skills: (parentDir: string) => Registration
  /**
   * Sends a notification to every initialized 2025 session, and, when it is one of the four change
   * notifications (`notifications/{tools,prompts,resources}/list_changed`,
   * `notifications/resources/updated` with a `uri`), to every 2026 listen stream whose filter asked
   * for it. Other notifications do not reach 2026 clients: that revision has no channel for
   * unsolicited messages. Returns how many sessions and streams it reached.
   */
  broadcast: (notification: { method: string, params?: Record<string, unknown> }) => number
  /**
   * Tells the 2025 sessions subscribed to `uri` (`resources/subscribe`) and the 2026 listen streams
   * listing it in `resourceSubscriptions` that it changed (`notifications/resources/updated`).
   * Returns how many sessions and streams it reached.
   */
  notifyResourceUpdated: (uri: string) => number
  /**
   * Number of open sessions opened on this server (with `scaleOut`, on this instance: the copies
   * it keeps of sessions opened elsewhere are not counted, here or against `maxSessions`).
   */
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
  /** Bounds of listen streams; the schema defaults for those absent. */
  listen?: Readonly<Partial<ListenLimits>> | undefined
  /** OpenTelemetry spans and metrics; default on (they cost nothing until an SDK is registered). */
  telemetry?: Readonly<TelemetrySettings> | undefined
  /** The protocol's extensions (MCP Apps, Skills), built over the core's registry; default none. */
  extensions?: ExtensionsFactory | undefined
  /** The rule of every definition without its own `auth` (the `defaultAuth` option); default none. */
  defaultAuth?: Readonly<AccessRule> | undefined
  /**
   * Whether requests come with a verified principal (HTTP with `auth`). Without, no caller holds a
   * scope, and the server says once at start which definitions that makes unreachable. Default false.
   */
  authenticated?: boolean | undefined
}

/** What a core built without extensions answers to their registration calls. */
const NO_EXTENSIONS: ExtensionRegistrations = {
  appResource: () => { throw new Error('this MCP core was built without extensions') },
  skill: () => { throw new Error('this MCP core was built without extensions') },
  skills: () => { throw new Error('this MCP core was built without extensions') }
}

/**
 * Everything that is the same on every transport: the registry, the
 * dispatcher, the set of live sessions and the change listeners (the 2026
 * listen streams). Transports add and remove sessions; list changes, resource
 * updates and broadcasts go out through here to both generations.
 */
export class ProtocolServer implements MCPRegistryApi {
  readonly registry: Registry
  readonly dispatcher: Dispatcher
  /** The door of every request: access rules and rate limits, before middleware and handlers. */
  readonly gate: Gate
  private readonly middleware: Middleware[] = []
  private readonly authenticated: boolean
  private readonly warn: ((details: Record<string, unknown>, message: string) => void) | undefined
  readonly sessions = new Map<string, Session>()
  /** The 2026-07-28 leg's settings: generations served, versions, serverInfo, caching. */
  readonly modern: ModernSettings
  /** The open `subscriptions/listen` streams; also the first of {@link changeListeners}. */
  readonly listen: ListenHub
  private readonly changeListeners = new Set<ChangeListener>()
  /** Modern requests being answered (each a throwaway session), per client, so that shutdown can abort them. */
  private readonly modernRequests: ModernInflight
  /** Tasks started by task-augmented calls, and the `tasks/*` methods. */
  readonly tasks: TaskManager
  /** Scale-out: where changes go instead of straight to this instance's sessions (see {@link setRelay}). */
  private relay: ChangeRelay | undefined
  /** How many of `sessions` are copies of sessions opened on another instance (scale-out). */
  private copies = 0
  /** Spans and metrics (MCP semantic conventions); transports report refusals through it. */
  readonly telemetry: Telemetry
  private readonly registrations: ExtensionRegistrations
  private readonly verifiers: Array<() => void> = []

  constructor (options: CoreOptions) {
    this.registry = new Registry(options.defaultAuth)
    this.authenticated = options.authenticated === true
    const logger = options.logger as ErrorLogger & { warn?: (details: Record<string, unknown>, message: string) => void }
    this.warn = logger.warn?.bind(logger)
    this.modern = modernSettings(options)
    const limits = resolveLimits(options)
    // Bytes of requests in flight, per client and overall: those of 2026-07-28 requests taken here, the rest by the dispatcher.
    const inflightBytes = new ByteLedger(limits.maxInflightBytes, limits.maxInflightBytesPerClient)
    const tasks = { ...TASK_DEFAULTS, ...options.tasks }
    this.tasks = new TaskManager({
      store: options.taskStore ?? new MemoryTaskStore(),
      ownsStore: options.taskStore === undefined,
      ttlMs: tasks.ttlMs,
      pollIntervalMs: tasks.pollIntervalMs,
      limits: { maxTasks: tasks.maxTasks, maxTasksPerOwner: tasks.maxTasksPerPrincipal, maxBytes: tasks.maxBytes, maxBytesPerOwner: tasks.maxBytesPerPrincipal },
      logger: options.logger,
      onLimit: (limit) => { this.telemetry.limitRefusal(limit) }
    })
    this.listen = new ListenHub({ ...LISTEN_DEFAULTS, ...options.listen })
    this.changeListeners.add(this.listen)
    this.telemetry = new Telemetry(options.telemetry ?? { enabled: true }, {
      knows: (kind, name) => (kind === 'tool' ? this.registry.tools : this.registry.prompts).has(name),
      sessions: () => this.sessionCount
    })
    this.telemetry.countStreams('listen', () => this.listen.size)
    this.modernRequests = new ModernInflight(limits.maxInflightRequests, inflightBytes, this.telemetry)
    const extensionMethods = new Map<string, MethodHandler>()
    const doorVerdicts = new DoorVerdicts()
    this.dispatcher = new Dispatcher(this.registry, { ...options, modern: this.modern, tasks: this.tasks, telemetry: this.telemetry, extensionMethods, middleware: this.middleware, inflightBytes, doorVerdicts, written: () => this.relay?.written() }, this.listen)
    this.gate = new Gate(this.registry, this.tasks, doorVerdicts)
    const built = options.extensions?.(this.registry)
    for (const extension of built?.extensions ?? []) this.install(extension, extensionMethods)
    this.registrations = built?.registrations ?? NO_EXTENSIONS
    this.registry.onChange((kind) => {
      const message: JsonRpcNotification = { jsonrpc: '2.0', method: LIST_CHANGED_METHODS[kind] }
      if (this.relay === undefined) this.broadcastLocally(message)
      else this.relay.listChanged(kind, this.registry.digest(kind), JSON.stringify(message))
    })
    // notifications/tasks on the listen streams that listed the task (its changes made in this process).
    this.tasks.onChange((task) => { this.listen.deliverTask(task) })
  }

  /** Plugs one extension in: its capability entry, its methods, its share of tool shaping and start checks. */
  private install (extension: ProtocolExtension, methods: Map<string, MethodHandler>): void {
    this.registry.extensionCapabilities.set(extension.id, extension.capability)
    for (const [method, handler] of Object.entries(extension.methods ?? {})) methods.set(method, handler)
    if (extension.shapeTool !== undefined) this.registry.toolShapers.push(extension.shapeTool)
    if (extension.verify !== undefined) this.verifiers.push(extension.verify)
  }

  /**
   * Checks what was registered as a whole, once registration is over: the entry points call it
   * when the server starts (a tool linked to an app page that was never registered fails it).
   */
  verifyDefinitions (): void {
    for (const verify of this.verifiers) verify()
    if (!this.authenticated) this.warnUnreachable()
  }

  /** Without auth no caller holds a scope: the definitions whose rule needs one cannot be used, said once. */
  private warnUnreachable (): void {
    const { registry } = this
    const unreachable = [
      ...[...registry.tools.values()].map((entry) => ['tool', entry] as const),
      ...[...registry.prompts.values()].map((entry) => ['prompt', entry] as const),
      ...[...registry.resources.values(), ...registry.templates.values()].map((entry) => ['resource', entry] as const)
    ].filter(([, entry]) => (registry.ruleOf(entry)?.scopes.length ?? 0) > 0).map(([kind, entry]) => `${kind} ${entry.name}`)
    if (unreachable.length === 0) return
    this.warn?.({ unreachable }, `access rules require scopes, but requests carry no credential (stdio, or HTTP without auth): ${unreachable.length} definition(s) cannot be used by anyone: ${unreachable.slice(0, 10).join(', ')}${unreachable.length > 10 ? ', ...' : ''}`)
  }

  use (middleware: Middleware): void {
    if (typeof middleware !== 'function') throw new TypeError('use() takes a middleware function: async (op, next) => result')
    this.middleware.push(middleware)
  }

  /**
   * The door of `request` ({@link Gate}): its refusal (missing scopes, or over a rate limit), for
   * its transport to answer; undefined to let it through. Undefined at once on a server without
   * rules or rate limits.
   */
  screen (request: JsonRpcRequest, caller: Caller, screening: Screening): Promise<Refusal | undefined> | undefined {
    return this.gate.screen(request, caller, screening)
  }

  /**
   * Scale-out: broadcasts and resource updates go to every instance through `relay` instead of
   * straight to this instance's sessions, and registry changes are announced through it (every
   * instance applies the same registrations; each announces a change once). Undefined puts the
   * sessions of this instance back as the only receivers (shutdown).
   */
  setRelay (relay: ChangeRelay | undefined): void {
    this.relay = relay
  }

  /** Adds a receiver of every change event beside the sessions; returns its removal. */
  addChangeListener (listener: ChangeListener): () => void {
    this.changeListeners.add(listener)
    return () => { this.changeListeners.delete(listener) }
  }

  /** Sessions opened here (scale-out: not the copies of sessions opened on other instances). */
  get sessionCount (): number {
    return this.sessions.size - this.copies
  }

  /**
   * Tracks a modern request's throwaway session while it is answered (not a session: no broadcast,
   * no session count), so that shutdown aborts it; the transport calls {@link endModernRequest}
   * after. The session counts against `caller.client` (over HTTP its identity, or its address
   * without auth, as for the session share; on stdio the process): a client may have
   * `maxInflightRequests` modern requests in flight at once, as a 2025 client may on one session,
   * holding `maxInflightBytesPerClient` bytes of them. Past either this throws -32600 and nothing is
   * tracked: stateless requests must not let one client pile up handlers without bound.
   */
  beginModernRequest (session: Session, caller: Caller): void {
    this.modernRequests.begin(session, caller)
  }

  /** Closes a modern request's session once its answer is out, and forgets it. */
  endModernRequest (session: Session): void {
    this.modernRequests.end(session)
    session.close('request answered')
  }

  /**
   * Tracks a session until it closes. `peer`, for telemetry: the HTTP request that opened it,
   * undefined on stdio, null for a session opened on another instance (scale-out), whose
   * duration is not this instance's to record.
   */
  addSession (session: Session, peer?: NetworkPeer | null): void {
    if (peer !== null) {
      this.telemetry.trackSession(session, peer)
    } else {
      // A copy is cached state, rebuilt from the store on demand: it takes no `maxSessions` slot,
      // or N instances serving every session everywhere would hold N times the sessions they have.
      this.copies++
      session.onClose(() => { this.copies-- })
    }
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

  appResource (definition: AppResourceDefinition): Registration {
    return this.registrations.appResource(definition)
  }

  skill (definition: SkillDefinition): Registration {
    return this.registrations.skill(definition)
  }

  skills (parentDir: string): Registration {
    return this.registrations.skills(parentDir)
  }

  broadcast (notification: { method: string, params?: Record<string, unknown> }): number {
    const message: JsonRpcNotification = notification.params === undefined
      ? { jsonrpc: '2.0', method: notification.method }
      : { jsonrpc: '2.0', method: notification.method, params: notification.params }
    if (this.relay !== undefined) return this.relay.broadcast(JSON.stringify(message))
    return this.broadcastLocally(message)
  }

  /** A broadcast to this instance's sessions and listen streams. */
  private broadcastLocally (message: JsonRpcNotification): number {
    // Serialized once for all sessions: a broadcast to 10,000 clients must not stringify 10,000 times.
    const json = JSON.stringify(message)
    let reached = 0
    for (const session of this.sessions.values()) {
      if (session.state !== 'ready') continue
      session.sendSerialized(json, message)
      reached++
    }
    const event = changeEventOf(message)
    return event === undefined ? reached : reached + this.deliver(event)
  }

  notifyResourceUpdated (uri: string): number {
    const params = { uri }
    const message: JsonRpcNotification = { jsonrpc: '2.0', method: RESOURCE_UPDATED_METHOD, params }
    if (this.relay !== undefined) return this.relay.resourceUpdated(uri, JSON.stringify(message))
    let reached = 0
    for (const session of this.sessions.values()) {
      if (!session.isSubscribed(uri)) continue
      session.send(message)
      reached++
    }
    return reached + this.deliver({ kind: 'resource_updated', uri, params })
  }

  /** Delivers a change event to the listen streams (and other change listeners) of this instance. */
  deliver (event: ChangeEvent): number {
    let reached = 0
    for (const listener of this.changeListeners) reached += listener.deliver(event)
    return reached
  }

  /**
   * Ends every listen stream gracefully (server shutdown): each gets its
   * `complete` result. Resolves once those answers are handed to the
   * transports, so a shutdown that closes the sessions next does not cut them off.
   */
  async closeListenStreams (): Promise<void> {
    await this.listen.closeAll()
  }

  /** Ends every session (server shutdown). */
  closeAllSessions (reason: string): void {
    for (const session of [...this.sessions.values(), ...this.modernRequests.sessions()]) session.close(reason)
  }
}
