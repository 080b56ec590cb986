import { ErrorCode, McpError } from '../../jsonrpc/errors.js'
import type { MethodEnv, MethodHandler } from '../methods/types.js'
import type { InputAsker } from '../request-context.js'
import { digest, requestDigest } from './canonical.js'
import { MissingCapabilityError } from './errors.js'
import { checkInputResponse } from './input-responses.js'
import type { RequestStateBinding, RequestStatePayload, StoredAnswer } from './request-state.js'
import { isRecord } from '../../util/is-record.js'

/**
 * Multi-round-trip requests (MCP 2026-07-28, SEP-2322) behind `ctx.elicit`,
 * `ctx.sample` and `ctx.listRoots`. There is no server-to-client request on a
 * 2026 request: when a handler asks something the retry has not answered, the
 * call ends with `resultType: "input_required"`, and the client retries with
 * the answers. The handler then runs again from the top and its asks resolve
 * from the answers, so its code is the same as on a 2025 session.
 *
 * An ask's key (`inputRequests` key) is the caller's `options.key` or
 * `<capability>-<call index>-<digest of method and params>`: deterministic
 * across re-runs of a deterministic handler, and a question whose content
 * changed gets a new key, so it is never answered with the old answer.
 * Clients send only the latest round's answers, so the answers the handler
 * used are carried forward in the signed `requestState`.
 */

/** The client capability each input method needs. */
const INPUT_CAPABILITY: Readonly<Record<string, string>> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots'
}

const MAX_KEY_LENGTH = 128

/**
 * How an unanswered `ctx.elicit/sample/listRoots` ends a handler's run on a
 * 2026-07-28 request: the call's answer becomes `input_required`, whatever the
 * handler does after. A handler that catches every error around an ask should
 * rethrow this one, or it goes on with no answer (and its result is discarded).
 */
export class InputRequiredError extends McpError {
  constructor () {
    super(ErrorCode.InternalError, 'Input required: this request ends with resultType "input_required" and runs again when the client answers')
    this.name = 'InputRequiredError'
  }
}

function invalidParams (reason: string): McpError {
  return new McpError(ErrorCode.InvalidParams, `Invalid params: ${reason}`)
}

/** A rejected promise that is already marked handled: a handler may ask without awaiting. */
function refuse (error: Error): Promise<never> {
  const promise = Promise.reject(error)
  promise.catch(() => {})
  return promise
}

const EMPTY_STATE: RequestStatePayload = { answers: new Map(), asked: new Map() }
/** The `inputResponses` of a request that sends none (the first round, and most calls): never written to. */
const NO_RESPONSES: ReadonlyMap<string, Record<string, unknown>> = new Map()

/** What {@link InputRound.outcomeOf} settles with once a question is open, instead of the handler's result. */
const QUESTION_OPEN = Symbol('question open')

/** One run of a handler on a 2026-07-28 request: the answers it may use and the questions it leaves open. */
export class InputRound implements InputAsker {
  private readonly capabilities: Record<string, unknown>
  private readonly responses: ReadonlyMap<string, Record<string, unknown>>
  private readonly earlier: RequestStatePayload
  // The three below are made at the first ask: most calls never ask anything.
  /** Answers the handler consumed this run: the next state carries them. */
  private used: Map<string, StoredAnswer> | undefined
  /** Questions left unanswered this run: the `inputRequests` of the result. */
  private open: Map<string, { question: string, method: string, params: Record<string, unknown> }> | undefined
  private keys: Set<string> | undefined
  private calls = 0
  private ended = false
  /** An answer that is not a valid result: the request fails with it, whatever the handler did. */
  failure: McpError | undefined
  /** Settles {@link outcomeOf} once a question is open; taken at the first one. */
  private settleOpen: ((outcome: typeof QUESTION_OPEN) => void) | undefined

  constructor (capabilities: Record<string, unknown>, responses: ReadonlyMap<string, Record<string, unknown>>, earlier: RequestStatePayload = EMPTY_STATE) {
    this.capabilities = capabilities
    this.responses = responses
    this.earlier = earlier
  }

  /** True when the handler asked something this run has no answer for. */
  get needsInput (): boolean {
    return this.open !== undefined && this.open.size > 0
  }

  /**
   * What the run of the handler (`run`) comes to: its result or its error, or {@link QUESTION_OPEN}
   * one turn of the event loop after its first question left open, whichever comes first (asks made
   * together, as in Promise.all, are all open by then): a handler that goes on without awaiting
   * its ask must not hold the answer. One promise, where a race of `run` against a promise of the
   * first question made three per call.
   */
  outcomeOf (run: Promise<Record<string, unknown>>): Promise<Record<string, unknown> | typeof QUESTION_OPEN> {
    return new Promise((resolve, reject) => {
      // A question the handler opened before its first await is already open.
      if (this.needsInput) setImmediate(resolve, QUESTION_OPEN)
      else this.settleOpen = resolve
      run.then(resolve, reject)
    })
  }

  ask (method: string, params: Record<string, unknown> | undefined, key: string | undefined): Promise<Record<string, unknown>> {
    // Work the handler left running after its call ended cannot add to a result already sent.
    if (this.ended) return refuse(new InputRequiredError())
    const capability = INPUT_CAPABILITY[method] as string
    const declared = this.capabilities[capability]
    if (declared === undefined || declared === null) return refuse(new MissingCapabilityError(capability))
    const index = this.calls++
    const requestParams = params ?? {}
    const question = digest([method, requestParams], 16)
    const name = key ?? `${capability}-${index}-${question}`
    if (name.length === 0 || name.length > MAX_KEY_LENGTH) {
      return refuse(new McpError(ErrorCode.InternalError, `An input key must be 1 to ${MAX_KEY_LENGTH} characters long`))
    }
    this.keys ??= new Set()
    if (this.keys.has(name)) {
      return refuse(new McpError(ErrorCode.InternalError, `The input key "${name}" is used twice in one request`))
    }
    this.keys.add(name)
    this.used ??= new Map()

    const stored = this.earlier.answers.get(name)
    if (stored !== undefined && stored.question === question) {
      this.used.set(name, stored)
      return Promise.resolve(structuredClone(stored.result))
    }
    const response = this.responses.get(name)
    // An answer counts only for a question this server asked, with this content, in the state it
    // signed: never one sent up front (an approval step skipped by answering before being asked),
    // nor one to a question that has since changed (a client resending old answers, or a key reused
    // for another question). Anything else is asked again.
    if (response !== undefined && this.earlier.asked.get(name) === question) {
      const problem = checkInputResponse(method, response)
      if (problem !== undefined) {
        this.failure ??= invalidParams(`inputResponses["${name}"] is not a valid ${method} result: ${problem}`)
        return refuse(this.failure)
      }
      this.used.set(name, { question, result: structuredClone(response) })
      return Promise.resolve(response)
    }
    this.open ??= new Map()
    this.open.set(name, { question, method, params: requestParams })
    const settle = this.settleOpen
    this.settleOpen = undefined
    if (settle !== undefined) setImmediate(settle, QUESTION_OPEN)
    return refuse(new InputRequiredError())
  }

  /** Ends the run: later asks are refused and recorded nowhere. */
  end (): void {
    this.ended = true
  }

  /** The `input_required` result: the open questions and a state carrying every answer used so far. */
  inputRequired (seal: (payload: RequestStatePayload) => string): Record<string, unknown> {
    const open = [...(this.open ?? [])]
    // Object.fromEntries defines own properties: a key like "__proto__" stays a key.
    const inputRequests = Object.fromEntries(open.map(([key, { method, params }]) => [key, { method, params }]))
    const asked = new Map(open.map(([key, { question }]) => [key, question]))
    return { resultType: 'input_required', inputRequests, requestState: seal({ answers: this.used ?? new Map(), asked }) }
  }
}

/** Reads `inputResponses`: an object of result objects, or absent. */
function readResponses (value: unknown): ReadonlyMap<string, Record<string, unknown>> {
  if (value === undefined) return NO_RESPONSES
  const responses = new Map<string, Record<string, unknown>>()
  if (!isRecord(value)) throw invalidParams('params.inputResponses must be an object mapping input keys to results')
  for (const [key, response] of Object.entries(value)) {
    if (!isRecord(response)) throw invalidParams('every value of params.inputResponses must be a result object')
    responses.set(key, response)
  }
  return responses
}

/**
 * Wraps `tools/call`, `prompts/get` or `resources/read` so that on a
 * 2026-07-28 request the handler's asks are answered from the retry and an
 * unanswered one ends the call with `input_required`. 2025 sessions pass
 * straight through: their asks are live requests on the session.
 */
export function withInputRequests (method: string, handler: MethodHandler): MethodHandler {
  // Not an async function: one promise per call (the `then` below) and no async frame, on every
  // 2026-07-28 tools/call. A throw before the handler runs (malformed inputResponses or
  // requestState) is thrown as is; the dispatcher answers it as it answers a rejection.
  return (params, env) => {
    if (env.session.generation !== 'modern') return handler(params, env)
    const responses = readResponses(params.inputResponses)
    // The binding a state was opened with is the one the next state is sealed with (the params'
    // digest taken once, before the handler runs).
    const binding = params.requestState === undefined ? undefined : stateBinding(method, params, env)
    const earlier = binding === undefined ? undefined : env.requestState.open(params.requestState, binding)
    const round = new InputRound(env.session.clientCapabilities, responses, earlier)
    env.ctx.inputs = round
    let run: Promise<Record<string, unknown>>
    try {
      // A native promise is taken as is (no wrapper); a handler that throws at once is a rejected run.
      run = Promise.resolve(handler(params, env))
    } catch (thrown) {
      run = Promise.reject(thrown)
    }
    // The answer is input_required once a question is open; the dispatcher then aborts ctx.signal
    // (nothing of this request keeps running after its answer).
    const answer = (outcome: Record<string, unknown> | typeof QUESTION_OPEN, failed: boolean, error?: unknown): Record<string, unknown> => {
      round.end()
      if (round.failure !== undefined) throw round.failure
      if (round.needsInput) {
        // The handler may still be running (it is told through ctx.signal); what it ends with is not an answer.
        run.catch(() => {})
        return round.inputRequired((payload) => env.requestState.seal(payload, binding ?? stateBinding(method, params, env)))
      }
      if (failed) throw error
      return outcome as Record<string, unknown>
    }
    return round.outcomeOf(run).then((outcome) => answer(outcome, false), (error: unknown) => answer(QUESTION_OPEN, true, error))
  }
}

/**
 * What a request's state is bound to: the caller of this request (ctx.auth, whatever its session
 * says), the method, and the digest of its params. Computed only when a state is opened or
 * sealed, which most calls never do.
 */
function stateBinding (method: string, params: Record<string, unknown>, env: MethodEnv): RequestStateBinding {
  return { principal: env.ctx.auth, method, paramsDigest: requestDigest(params) }
}
