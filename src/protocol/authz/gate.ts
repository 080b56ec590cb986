import type { JsonRpcRequest } from '../../jsonrpc/messages.js'
import { isRecord } from '../../util/is-record.js'
import { ACTS, type ActsOn } from '../methods/table.js'
import type { Caller } from '../caller.js'
import type { Registry } from '../registry.js'
import type { TaskManager } from '../tasks/manager.js'
import { ownerKey } from '../tasks/owner.js'
import { judge, type DoorVerdicts, type Guarded } from './access.js'
import { RateLimitedDenial, type Refusal } from './denials.js'
import type { RateCounter } from './rate.js'

/**
 * What the gate reads beside the {@link Caller} (whose principal the rules judge, and whose client
 * key budgets are counted against): what only the transport knows before dispatch.
 */
export interface Screening {
  /** The protocol version the request speaks (the session's; a 2026-07-28 request's own). */
  readonly protocolVersion: string
  /** Where budgets are counted: in this process, or shared by every instance (scale-out). */
  readonly counter: RateCounter
}

const TASK_METHODS = new Set(['tasks/get', 'tasks/update', 'tasks/cancel'])

/**
 * The door every request passes before the middleware chain and its handler, on every transport:
 * the access rule of the definition it acts on (a tool, prompt, resource or template; a completion's
 * reference; a task's tool) and that definition's rate limit. It answers only what a transport
 * must answer differently (HTTP 403 and 429, with their headers; a JSON-RPC error on stdio). A
 * definition hidden from the caller passes: its handler answers exactly as for an unknown name,
 * which only the handler can write. Nothing is checked (and nothing awaited) on a server without
 * rules or rate limits.
 */
export class Gate {
  private readonly registry: Registry
  private readonly tasks: TaskManager
  private readonly verdicts: DoorVerdicts

  constructor (registry: Registry, tasks: TaskManager, verdicts: DoorVerdicts) {
    this.registry = registry
    this.tasks = tasks
    this.verdicts = verdicts
  }

  /** The refusal of `request`, or undefined to let it in; undefined at once when no rule exists. */
  screen (request: JsonRpcRequest, caller: Caller, screening: Screening): Promise<Refusal | undefined> | undefined {
    if (!this.registry.gated) return undefined
    const params = request.params ?? {}
    const acts = ACTS.get(request.method)
    if (acts !== undefined) {
      const entry = this.find(acts, acts === 'resource' ? params.uri : params.name)
      return entry === undefined ? undefined : this.admit(request.method, entry, acts, caller, screening, true)
    }
    if (request.method === 'completion/complete') {
      const ref = isRecord(params.ref) ? params.ref : undefined
      const entry = ref?.type === 'ref/prompt' ? this.find('prompt', ref.name) : ref?.type === 'ref/resource' && typeof ref.uri === 'string' ? this.registry.templates.get(ref.uri) : undefined
      return entry === undefined ? undefined : this.admit(request.method, entry, 'prompt', caller, screening, false)
    }
    if (TASK_METHODS.has(request.method)) return this.screenTask(request.method, params.taskId, caller, screening)
    return undefined
  }

  /** A task method: the rule of the tool the task runs, with this request's credential. */
  private async screenTask (method: string, taskId: unknown, caller: Caller, screening: Screening): Promise<Refusal | undefined> {
    const task = await this.tasks.peek(taskId, ownerKey(caller.principal))
    const tool = task?.tool === undefined ? undefined : this.registry.tools.get(task.tool)
    return tool === undefined ? undefined : await this.admit(method, tool, 'tool', caller, screening, false)
  }

  private find (acts: ActsOn, name: unknown): Guarded | undefined {
    if (typeof name !== 'string') return undefined
    if (acts === 'tool') return this.registry.tools.get(name)
    if (acts === 'prompt') return this.registry.prompts.get(name)
    return this.registry.findResource(name)?.resource
  }

  private async admit (method: string, entry: Guarded, acts: ActsOn, caller: Caller, screening: Screening, counted: boolean): Promise<Refusal | undefined> {
    const verdict = await judge(this.registry.ruleOf(entry), caller.principal, {
      method, name: entry.name, protocolVersion: screening.protocolVersion, transport: caller.transport
    })
    this.verdicts.remember(caller, { entry, method, verdict })
    if (verdict !== true) return verdict === false ? undefined : verdict
    const limit = entry.rateLimit
    if (!counted || limit === undefined) return undefined
    const hit = await screening.counter.hit(JSON.stringify([caller.client, acts, entry.name]), limit.max, limit.timeWindow)
    return hit.count > limit.max ? new RateLimitedDenial(limit.max, limit.timeWindow, hit.resetMs) : undefined
  }
}
