import { createHash } from 'node:crypto'
import type { TSchema } from '@sinclair/typebox'
import { DuplicateDefinitionError, InvalidDefinitionError } from '../errors.js'
import type {
  ArgsOf, Completer, JsonSchema, PromptArgument, PromptDefinition, PromptHandler, ResourceDefinition,
  ResourceHandler, ToolDefinition, ToolHandler
} from './definitions.js'
import type { Guarded, RuleBook } from './authz/access.js'
import { compileRateLimit, compileRule, type CompiledRule } from './authz/rules.js'
import { readMirroredParams, type MirroredParam } from './modern/mcp-header.js'
import type { TaskStart, TaskSupport } from './tasks/types.js'
import { compileUriTemplate, isUriTemplate, type UriTemplate } from './uri-template.js'
import { compileValidator, toWireSchema, type Validator } from './validation.js'

export type ListKind = 'tools' | 'resources' | 'prompts'

/** Returned by every registration: removes the entry again (clients get `list_changed`). */
export interface Registration {
  remove: () => void
}

export interface RegisteredTool extends Guarded {
  /** What `tools/list` sends: plain JSON, computed once. */
  readonly wire: Record<string, unknown>
  readonly validateInput: Validator
  readonly validateOutput: Validator | undefined
  /** Parameters mirrored into `Mcp-Param-*` headers (`x-mcp-header`), read once. */
  readonly mirrored: readonly MirroredParam[]
  /** Whether calls may (or must) run as tasks; `execution` itself never reaches the wire. */
  readonly taskSupport: TaskSupport
  /** When a task call becomes a task: on arrival, or when the handler calls `ctx.startTask()`. */
  readonly taskStart: TaskStart
  readonly handler: ToolHandler<Record<string, unknown>>
}

export interface RegisteredResource extends Guarded {
  readonly wire: Record<string, unknown>
  /** Whether `resources/list` shows it; an unlisted resource is readable all the same (MCP Apps, skill files). */
  readonly listed: boolean
  readonly template: UriTemplate | undefined
  /** A Map, not an object: names come from clients, and `constructor` must not find Object's. */
  readonly completers: ReadonlyMap<string, Completer>
  readonly handler: ResourceHandler<string>
}

export interface RegisteredPrompt extends Guarded {
  readonly wire: Record<string, unknown>
  readonly required: readonly string[]
  readonly completers: ReadonlyMap<string, Completer>
  readonly handler: PromptHandler<readonly PromptArgument[]>
}

/** How a resource is registered beyond its definition: what extensions register (app pages, skill files). */
export interface ResourceRegistration {
  /** Whether `resources/list` shows it (a fixed URI; templates are always listed). Default true. */
  listed?: boolean
}

/**
 * Completes a tool's wire form from the definition fields an extension owns (MCP Apps: `ui`
 * becomes `_meta.ui`); throws {@link InvalidDefinitionError} naming the tool when they are wrong.
 */
export type ToolShaper = (definition: ToolDefinition<TSchema | JsonSchema, TSchema | JsonSchema>, wire: Record<string, unknown>) => void

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/
const EMPTY_OBJECT_SCHEMA: JsonSchema = { type: 'object', properties: {} }

// The keys each definition takes. Anything else is refused at registration: an unknown key would
// otherwise go to clients as it is (a misspelt `auth` rule would be published instead of enforced).
const TOOL_KEYS = keySet('name title description inputSchema outputSchema annotations icons execution ui _meta auth rateLimit')
const RESOURCE_KEYS = keySet('uri name title description mimeType size annotations icons complete _meta auth rateLimit')
const PROMPT_KEYS = keySet('name title description arguments icons _meta auth rateLimit')
const ARGUMENT_KEYS = keySet('name title description required complete')

/**
 * Holds what the server offers. Transport-agnostic: it validates definitions,
 * precomputes their wire form and validators once, and announces changes so
 * the server can send `notifications/<kind>/list_changed`.
 */
export class Registry implements RuleBook {
  readonly tools = new Map<string, RegisteredTool>()
  readonly resources = new Map<string, RegisteredResource>()
  readonly templates = new Map<string, RegisteredResource>()
  readonly prompts = new Map<string, RegisteredPrompt>()
  /**
   * The extensions' entries in `capabilities.extensions`, on both generations: each gives its
   * settings object, or undefined while it offers nothing.
   */
  readonly extensionCapabilities = new Map<string, () => Record<string, unknown> | undefined>()
  /** Run on every tool registered, in order; see {@link ToolShaper}. */
  readonly toolShapers: ToolShaper[] = []
  private readonly listeners: Array<(kind: ListKind) => void> = []
  /** The server's `defaultAuth`: the rule of every definition without its own. */
  readonly defaultRule: CompiledRule | undefined
  /** Definitions registered with a rule or a rate limit of their own, by list (never decremented: see {@link gated}). */
  private readonly ruled: Record<ListKind, number> = { tools: 0, resources: 0, prompts: 0 }

  /** `defaultAuth`: checked like a definition's `auth`. */
  constructor (defaultAuth?: unknown) {
    this.defaultRule = compileRule(defaultAuth, 'server', 'defaultAuth')
  }

  /**
   * True once any definition has had a rule or a rate limit, or with `defaultAuth`: requests then
   * go through the checks. A removal does not turn it back off (a check with nothing to find is
   * only slower), so a single property read is all a server without rules pays.
   */
  get gated (): boolean {
    return this.defaultRule !== undefined || this.ruled.tools + this.ruled.resources + this.ruled.prompts > 0
  }

  /** Whether a rule may apply to an entry of `kind`'s list (its content then depends on who asks). */
  guards (kind: ListKind): boolean {
    return this.defaultRule !== undefined || this.ruled[kind] > 0
  }

  ruleOf (entry: Guarded): CompiledRule | undefined {
    return entry.rule ?? this.defaultRule
  }

  onChange (listener: (kind: ListKind) => void): void {
    this.listeners.push(listener)
  }

  /**
   * A fingerprint of what one list holds (what its `list` request answers), the same in every
   * process that registered the same definitions, in any order: several instances of a server
   * (scale-out) compare it to announce a change they all made once, not once per instance.
   */
  digest (kind: ListKind): string {
    const items = kind === 'tools'
      ? [...this.tools.values()]
      : kind === 'prompts' ? [...this.prompts.values()] : [...this.listedResources(), ...this.templates.values()]
    const wires = items.map((item) => JSON.stringify(item.wire)).sort()
    return createHash('sha256').update(wires.join('\n')).digest('base64url').slice(0, 22)
  }

  tool<I extends TSchema | JsonSchema, O extends TSchema | JsonSchema> (definition: ToolDefinition<I, O>, handler: ToolHandler<ArgsOf<I>>): Registration {
    requireObject(definition, 'tool')
    requireHandler(handler, 'tool', definition.name)
    if (typeof definition.name !== 'string' || !TOOL_NAME.test(definition.name)) {
      throw new InvalidDefinitionError('tool', `name must be 1-128 characters of A-Z, a-z, 0-9, "_", "-" or "."; got ${JSON.stringify(definition.name)}`)
    }
    const name = definition.name
    requireKnownKeys(definition, TOOL_KEYS, 'tool', name)
    if (this.tools.has(name)) throw new DuplicateDefinitionError('tool', name)
    const rule = compileRule(definition.auth, 'tool', name)
    const rateLimit = compileRateLimit(definition.rateLimit, 'tool', name)
    const inputSchema = definition.inputSchema === undefined ? EMPTY_OBJECT_SCHEMA : toWireSchema(requireObjectSchema(definition.inputSchema, name, 'inputSchema'))
    // Structured results may be any JSON value (2026-07-28, SEP-2106): any JSON Schema describes them.
    const outputSchema = definition.outputSchema === undefined ? undefined : toWireSchema(requireSchema(definition.outputSchema, name, 'outputSchema'))
    const mirrored = readMirroredParams(inputSchema)
    if ('problem' in mirrored) throw new InvalidDefinitionError('tool', `${name}: ${mirrored.problem}`)
    const { taskSupport, taskStart } = executionOf(definition.execution, name)
    const { inputSchema: _i, outputSchema: _o, execution: _e, ui, auth: _a, rateLimit: _r, ...rest } = definition
    const wire: Record<string, unknown> = { ...rest, inputSchema }
    if (outputSchema !== undefined) wire.outputSchema = outputSchema
    if (ui !== undefined && this.toolShapers.length === 0) throw new InvalidDefinitionError('tool', `${name}: ui links an app, and this server has no MCP Apps extension`)
    for (const shape of this.toolShapers) shape(definition as ToolDefinition<TSchema | JsonSchema, TSchema | JsonSchema>, wire)
    this.tools.set(name, {
      name,
      rule,
      rateLimit,
      wire,
      validateInput: validatorFor(inputSchema, name, 'inputSchema', 'arguments'),
      validateOutput: outputSchema === undefined ? undefined : validatorFor(outputSchema, name, 'outputSchema', 'structuredContent'),
      mirrored: mirrored.params,
      taskSupport,
      taskStart,
      handler: handler as ToolHandler<Record<string, unknown>>
    })
    this.count('tools', rule, rateLimit)
    return this.announce('tools', () => this.tools.delete(name))
  }

  resource<U extends string> (definition: ResourceDefinition<U>, handler: ResourceHandler<U>, registration?: ResourceRegistration): Registration {
    requireObject(definition, 'resource')
    requireHandler(handler, 'resource', definition.uri)
    if (typeof definition.uri !== 'string' || !/^[A-Za-z][A-Za-z0-9+.-]*:/.test(definition.uri)) {
      throw new InvalidDefinitionError('resource', `uri must be an absolute URI or URI template; got ${JSON.stringify(definition.uri)}`)
    }
    if (typeof definition.name !== 'string' || definition.name === '') {
      throw new InvalidDefinitionError('resource', `${definition.uri}: name must be a non-empty string`)
    }
    const uri: string = definition.uri
    requireKnownKeys(definition, RESOURCE_KEYS, 'resource', uri)
    const templated = isUriTemplate(uri)
    const target = templated ? this.templates : this.resources
    if (target.has(uri)) throw new DuplicateDefinitionError('resource', uri)
    const rule = compileRule(definition.auth, 'resource', uri)
    const rateLimit = compileRateLimit(definition.rateLimit, 'resource', uri)
    const { uri: _u, complete, auth: _a, rateLimit: _r, ...rest } = definition
    const template = templated ? compileUriTemplate(uri) : undefined
    const completers = new Map(Object.entries(complete ?? {}) as Array<[string, Completer]>)
    for (const [variable, completer] of completers) {
      if (template?.variables.includes(variable) !== true) {
        throw new InvalidDefinitionError('resource', `${uri}: complete.${variable} names no variable of the URI template`)
      }
      requireCompleter(completer, 'resource', `${uri}: complete.${variable}`)
    }
    target.set(uri, {
      name: uri,
      rule,
      rateLimit,
      wire: templated ? { uriTemplate: uri, ...rest } : { uri, ...rest },
      listed: registration?.listed !== false || templated,
      template,
      completers,
      handler: handler as unknown as ResourceHandler<string>
    })
    this.count('resources', rule, rateLimit)
    // An unlisted resource leaves the list as it was: nothing to announce.
    if (registration?.listed === false && !templated) return { remove: () => { target.delete(uri) } }
    return this.announce('resources', () => target.delete(uri))
  }

  prompt<const A extends readonly PromptArgument[]> (definition: PromptDefinition<A>, handler: PromptHandler<A>): Registration {
    requireObject(definition, 'prompt')
    requireHandler(handler, 'prompt', definition.name)
    if (typeof definition.name !== 'string' || definition.name === '') {
      throw new InvalidDefinitionError('prompt', 'name must be a non-empty string')
    }
    const name = definition.name
    requireKnownKeys(definition, PROMPT_KEYS, 'prompt', name)
    if (this.prompts.has(name)) throw new DuplicateDefinitionError('prompt', name)
    const rule = compileRule(definition.auth, 'prompt', name)
    const rateLimit = compileRateLimit(definition.rateLimit, 'prompt', name)
    const args: readonly PromptArgument[] = definition.arguments ?? []
    if (!Array.isArray(args)) throw new InvalidDefinitionError('prompt', `${name}: arguments must be an array`)
    const completers = new Map<string, Completer>()
    const seen = new Set<string>()
    const wireArgs = args.map(({ complete, ...argument }) => {
      if (typeof argument === 'object' && argument !== null) requireKnownKeys(argument, ARGUMENT_KEYS, 'prompt', `${name}: argument ${String(argument.name)}`)
      if (typeof argument.name !== 'string' || argument.name === '' || seen.has(argument.name)) {
        throw new InvalidDefinitionError('prompt', `${name}: every argument needs a unique non-empty name`)
      }
      seen.add(argument.name)
      if (complete !== undefined) completers.set(argument.name, requireCompleter(complete, 'prompt', `${name}: argument ${argument.name}: complete`))
      return argument
    })
    const { arguments: _a, auth: _auth, rateLimit: _r, ...rest } = definition
    this.prompts.set(name, {
      name,
      rule,
      rateLimit,
      wire: { ...rest, arguments: wireArgs },
      required: args.filter((argument) => argument.required === true).map((argument) => argument.name),
      completers,
      handler: handler as unknown as PromptHandler<readonly PromptArgument[]>
    })
    this.count('prompts', rule, rateLimit)
    return this.announce('prompts', () => this.prompts.delete(name))
  }

  /** The fixed-URI resources `resources/list` shows. */
  * listedResources (): IterableIterator<RegisteredResource> {
    for (const resource of this.resources.values()) if (resource.listed) yield resource
  }

  /** Finds the resource for a URI: an exact URI first, then the first matching template. */
  findResource (uri: string): { resource: RegisteredResource, params: Record<string, string> } | undefined {
    const fixed = this.resources.get(uri)
    if (fixed !== undefined) return { resource: fixed, params: {} }
    for (const resource of this.templates.values()) {
      const params = resource.template?.match(uri)
      if (params !== undefined) return { resource, params }
    }
    return undefined
  }

  private count (kind: ListKind, rule: CompiledRule | undefined, rateLimit: unknown): void {
    if (rule !== undefined || rateLimit !== undefined) this.ruled[kind]++
  }

  private announce (kind: ListKind, remove: () => boolean): Registration {
    this.emit(kind)
    return {
      remove: () => {
        if (remove()) this.emit(kind)
      }
    }
  }

  private emit (kind: ListKind): void {
    for (const listener of this.listeners) listener(kind)
  }
}

function keySet (keys: string): ReadonlySet<string> {
  return new Set(keys.split(' '))
}

function requireKnownKeys (definition: object, known: ReadonlySet<string>, what: string, name: string): void {
  for (const key of Object.keys(definition)) {
    if (!known.has(key)) {
      throw new InvalidDefinitionError(what, `${name}: unknown field ${JSON.stringify(key)}; a ${what} definition takes ${[...known].join(', ')}`)
    }
  }
}

function requireObject (definition: unknown, what: string): void {
  if (typeof definition !== 'object' || definition === null) {
    throw new InvalidDefinitionError(what, 'the definition must be an object')
  }
}

function requireHandler (handler: unknown, what: string, name: unknown): void {
  if (typeof handler !== 'function') {
    throw new InvalidDefinitionError(what, `${String(name)}: the handler must be a function`)
  }
}

function requireCompleter (completer: unknown, what: string, where: string): Completer {
  if (typeof completer !== 'function') throw new InvalidDefinitionError(what, `${where} must be a function`)
  return completer as Completer
}

/** The schema's validator. A schema Ajv refuses (a `$ref` to nothing, a bad pattern) is the definition's mistake. */
function validatorFor (schema: JsonSchema, tool: string, field: string, subject: string): Validator {
  try {
    return compileValidator(schema, subject)
  } catch (error) {
    throw new InvalidDefinitionError('tool', `${tool}: ${field}: ${error instanceof Error ? error.message : String(error)}`)
  }
}

function requireSchema (schema: unknown, tool: string, field: string): JsonSchema {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new InvalidDefinitionError('tool', `${tool}: ${field} must be a JSON Schema object`)
  }
  return schema as JsonSchema
}

const TASK_SUPPORT: readonly unknown[] = ['forbidden', 'optional', 'required']
const TASK_START: readonly unknown[] = ['call', 'handler']

function executionOf (execution: unknown, tool: string): { taskSupport: TaskSupport, taskStart: TaskStart } {
  if (execution === undefined) return { taskSupport: 'forbidden', taskStart: 'call' }
  if (typeof execution !== 'object' || execution === null || Array.isArray(execution)) {
    throw new InvalidDefinitionError('tool', `${tool}: execution must be an object such as { taskSupport: 'optional' }`)
  }
  const { taskSupport = 'forbidden', taskStart = 'call', ...unknown } = execution as Record<string, unknown>
  const extra = Object.keys(unknown)
  if (extra.length > 0) throw new InvalidDefinitionError('tool', `${tool}: execution has no option ${JSON.stringify(extra[0])}; it takes taskSupport and taskStart`)
  if (!TASK_SUPPORT.includes(taskSupport)) {
    throw new InvalidDefinitionError('tool', `${tool}: execution.taskSupport must be 'forbidden', 'optional' or 'required'; got ${JSON.stringify(taskSupport)}`)
  }
  if (!TASK_START.includes(taskStart)) {
    throw new InvalidDefinitionError('tool', `${tool}: execution.taskStart must be 'call' or 'handler'; got ${JSON.stringify(taskStart)}`)
  }
  return { taskSupport: taskSupport as TaskSupport, taskStart: taskStart as TaskStart }
}

function requireObjectSchema (schema: unknown, tool: string, field: string): JsonSchema {
  if (typeof schema !== 'object' || schema === null || (schema as JsonSchema).type !== 'object') {
    throw new InvalidDefinitionError('tool', `${tool}: ${field} must be a JSON Schema with type "object"`)
  }
  return schema as JsonSchema
}
