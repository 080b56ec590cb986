import { createInterface, type Interface } from 'node:readline'
import type { Readable } from 'node:stream'
import type { ElicitRequest, ElicitResult } from '../testing/types.js'
import { isRecord } from '../util/is-record.js'
import type { Output } from './output.js'
import { typeOf } from './render.js'

/**
 * Answers `elicitation/create` from the terminal: the server's message, accept / decline /
 * cancel, then one question per field of the requested schema, each checked against its type
 * (asked again until it fits). Questions go to stderr; answers are read from stdin line by line
 * (a pipe works as well as a terminal). The end of stdin cancels.
 */
export class TerminalPrompter {
  private readonly input: Readable
  private readonly output: Output
  private lines: AsyncIterator<string> | undefined
  private readline: Interface | undefined

  constructor (input: Readable, output: Output) {
    this.input = input
    this.output = output
  }

  async elicit (request: ElicitRequest): Promise<ElicitResult> {
    const { err, styleErr: style } = this.output
    err(style('bold', `The server asks: ${request.message}`))
    const action = await this.choose()
    if (action !== 'accept') return { action }
    const schema = isRecord(request.requestedSchema) ? request.requestedSchema : {}
    const properties = isRecord(schema.properties) ? schema.properties : {}
    const required = new Set(Array.isArray(schema.required) ? schema.required : [])
    const content: Record<string, unknown> = {}
    for (const [name, raw] of Object.entries(properties)) {
      const property = isRecord(raw) ? raw : {}
      const label = typeof property.title === 'string' ? property.title : name
      const about = typeof property.description === 'string' ? ` · ${property.description}` : ''
      const fallback = property.default === undefined ? '' : ` [${String(property.default)}]`
      while (true) {
        const answer = await this.ask(`  ${label} (${typeOf(property)}${required.has(name) ? ', required' : ''})${about}${fallback}: `)
        if (answer === undefined) return { action: 'cancel' }
        if (answer === '') {
          if (property.default !== undefined) content[name] = property.default
          else if (required.has(name)) {
            err(style('yellow', '    an answer is required'))
            continue
          }
          break
        }
        const value = coerce(answer, property)
        if (value.problem !== undefined) {
          err(style('yellow', `    ${value.problem}`))
          continue
        }
        content[name] = value.value
        break
      }
    }
    return { action: 'accept', content }
  }

  close (): void {
    this.readline?.close()
  }

  private async choose (): Promise<ElicitResult['action']> {
    while (true) {
      const answer = await this.ask('Answer? [Y]es, [n]o (decline), [c]ancel: ')
      if (answer === undefined) return 'cancel'
      const word = answer.toLowerCase()
      if (word === '' || word === 'y' || word === 'yes') return 'accept'
      if (word === 'n' || word === 'no') return 'decline'
      if (word === 'c' || word === 'cancel') return 'cancel'
    }
  }

  /** One line of input after a question; undefined at the end of input. */
  private async ask (question: string): Promise<string | undefined> {
    this.output.err(question)
    if (this.lines === undefined) {
      this.readline = createInterface({ input: this.input, terminal: false })
      // The iterator queues lines that arrive before they are asked for (a pipe sends them all at once).
      this.lines = this.readline[Symbol.asyncIterator]()
    }
    const next = await this.lines.next()
    return next.done === true ? undefined : String(next.value).trim()
  }
}

/** A typed value from the text typed for a schema property, or what is wrong with it. */
function coerce (text: string, property: Record<string, unknown>): { value?: unknown, problem?: string } {
  const options = Array.isArray(property.enum) ? property.enum : undefined
  if (options !== undefined) {
    const found = options.find((option) => String(option) === text)
    return found === undefined ? { problem: `one of ${options.map(String).join(', ')}` } : { value: found }
  }
  switch (property.type) {
    case 'number':
    case 'integer': {
      const value = Number(text)
      if (!Number.isFinite(value) || (property.type === 'integer' && !Number.isInteger(value))) return { problem: `expected ${String(property.type)}` }
      return { value }
    }
    case 'boolean':
      if (/^(y|yes|true)$/i.test(text)) return { value: true }
      if (/^(n|no|false)$/i.test(text)) return { value: false }
      return { problem: 'expected yes or no' }
    default:
      return { value: text }
  }
}
