import { existsSync, statSync } from 'node:fs'
import { resolve } from 'node:path'
import { parseArgs, type ParseArgsConfig } from 'node:util'

/** A command line that cannot mean anything: said with the command's usage, exit code 2. */
export class UsageError extends Error {
  constructor (message: string) {
    super(message)
    this.name = 'UsageError'
  }
}

type Options = NonNullable<ParseArgsConfig['options']>

export interface ParsedLine<O extends Options> {
  values: ReturnType<typeof parseArgs<{ options: O, allowPositionals: true, strict: true, tokens: true }>>['values']
  positionals: string[]
  /** The words after `--`: a command to run, or undefined. */
  command: string[] | undefined
}

/** `util.parseArgs`, strict, with the words after `--` set apart as a command. */
export function parseLine<O extends Options> (args: string[], options: O): ParsedLine<O> {
  let parsed
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true, tokens: true })
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
  const terminator = parsed.tokens.find((token) => token.kind === 'option-terminator')
  if (terminator === undefined) return { values: parsed.values, positionals: parsed.positionals, command: undefined }
  const before = parsed.tokens.filter((token) => token.kind === 'positional' && token.index < terminator.index).length
  const command = parsed.positionals.slice(before)
  if (command.length === 0) throw new UsageError('nothing after "--": give the command that runs the server')
  return { values: parsed.values, positionals: parsed.positionals.slice(0, before), command }
}

/** What a command talks to: a server file run over stdio, a URL, or any command over stdio. */
export type Target =
  | { kind: 'file', path: string }
  | { kind: 'url', url: URL }
  | { kind: 'command', command: string, args: string[] }

/** The target named by `word`, or by the command after `--` (then `word` must be absent). */
export function targetOf (word: string | undefined, command: string[] | undefined): Target {
  if (command !== undefined) {
    const [name, ...args] = command as [string, ...string[]]
    return { kind: 'command', command: name, args }
  }
  if (word === undefined) throw new UsageError('missing target: a server file, an http(s):// URL, or -- <command ...>')
  if (/^https?:\/\//i.test(word)) {
    try {
      return { kind: 'url', url: new URL(word) }
    } catch {
      throw new UsageError(`not a valid URL: ${word}`)
    }
  }
  const path = resolve(word)
  if (!existsSync(path) || !statSync(path).isFile()) throw new UsageError(`no such file: ${word}`)
  return { kind: 'file', path }
}

/**
 * Tool arguments from `key=value` words over `--json '{...}'`: a value is JSON when it parses as
 * JSON (`n=1`, `flag=true`, `tags=["a"]`, `s="1"` for the string), and the text as is otherwise.
 */
export function argumentsOf (pairs: readonly string[], json: string | undefined): Record<string, unknown> {
  let args: Record<string, unknown> = {}
  if (json !== undefined) {
    let parsed: unknown
    try {
      parsed = JSON.parse(json)
    } catch (error) {
      throw new UsageError(`--json is not valid JSON: ${(error as Error).message}`)
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new UsageError('--json must be a JSON object of arguments')
    args = { ...parsed as Record<string, unknown> }
  }
  for (const pair of pairs) {
    const at = pair.indexOf('=')
    if (at <= 0) throw new UsageError(`expected key=value, got "${pair}"`)
    const value = pair.slice(at + 1)
    let parsed: unknown
    try {
      parsed = JSON.parse(value)
    } catch {
      parsed = value
    }
    args[pair.slice(0, at)] = parsed
  }
  return args
}

/** `--header 'Name: value'` words as a header record (names lower-cased). */
export function headersOf (words: readonly string[] | undefined): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const word of words ?? []) {
    const at = word.indexOf(':')
    const name = at === -1 ? '' : word.slice(0, at).trim()
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new UsageError(`--header expects "Name: value", got "${word}"`)
    headers[name.toLowerCase()] = word.slice(at + 1).trim()
  }
  return headers
}

export type ProtocolChoice = 'auto' | '2026-07-28' | '2025-11-25'

export function protocolOf (value: string | undefined): ProtocolChoice {
  if (value === undefined || value === 'auto') return 'auto'
  if (value === '2026-07-28' || value === '2025-11-25') return value
  throw new UsageError(`--protocol must be 2026-07-28, 2025-11-25 or auto, got "${value}"`)
}

/** A positive number of seconds as milliseconds (0 = no limit). */
export function secondsOf (value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback
  const seconds = Number(value)
  if (!Number.isFinite(seconds) || seconds < 0) throw new UsageError(`${name} must be a number of seconds, got "${value}"`)
  return Math.round(seconds * 1000)
}
