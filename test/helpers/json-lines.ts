// What a stdio server writes, read as the client side of the pipe does: one JSON-RPC message per
// line. Every read has a deadline, so a message that never comes fails the test with what was
// awaited instead of hanging it.
import type { Readable } from 'node:stream'
import { deadline } from './wait.js'

/**
 * How long a read waits by default, in ms: far more than any answer needs, and room for a child
 * process that compiles src/ on start on a loaded machine (the first read waits for that too).
 */
const READ_TIMEOUT_MS = 60_000

/**
 * Collects what a stdio runner writes, one parsed JSON-RPC message per line, into the returned
 * array as it arrives; `onLine` runs after each one (to wake a waiter).
 */
export function collectJsonLines (output: Readable, onLine: () => void = () => {}): any[] {
  const lines: any[] = []
  let buffered = ''
  // Decoded by the stream, so that a character split across two chunks comes out whole.
  output.setEncoding('utf8')
  output.on('data', (chunk: string) => {
    buffered += chunk
    let index
    while ((index = buffered.indexOf('\n')) !== -1) {
      lines.push(JSON.parse(buffered.slice(0, index)))
      buffered = buffered.slice(index + 1)
      onLine()
    }
  })
  return lines
}

export interface JsonLines {
  /** Messages received and not taken yet, in arrival order. */
  readonly queued: any[]
  /** Takes the first queued message `match` accepts (any, by default), waiting for it up to `timeoutMs`. */
  next: (match?: (message: any) => boolean, timeoutMs?: number) => Promise<any>
  /** Takes the answer to request `id`, with the messages that came before it (taken too). */
  answer: (id: unknown, timeoutMs?: number) => Promise<{ response: any, before: any[] }>
}

const isAnswerTo = (id: unknown) => (message: any): boolean => message.id === id && ('result' in message || 'error' in message)

/** Reads `output` as JSON lines: messages are queued, and taken by what a test awaits. */
export function readJsonLines (output: Readable): JsonLines {
  const wakers = new Set<() => void>()
  const queued = collectJsonLines(output, () => { for (const wake of [...wakers]) wake() })
  /**
   * Waits until `match` accepts a queued message, then takes it (and, with `before`, those ahead
   * of it) in the same tick, so that two readers never take the same line.
   */
  const take = async (match: (message: any) => boolean, timeoutMs: number, what: string, withBefore = false): Promise<{ message: any, before: any[] }> => {
    let wake!: () => void
    const found = new Promise<{ message: any, before: any[] }>((resolve) => {
      wake = () => {
        const index = queued.findIndex(match)
        if (index === -1) return
        wakers.delete(wake)
        const before = withBefore ? queued.splice(0, index) : []
        resolve({ message: queued.splice(withBefore ? 0 : index, 1)[0], before })
      }
      wakers.add(wake)
      wake()
    })
    try {
      return await deadline(found, timeoutMs, what)
    } finally {
      wakers.delete(wake)
    }
  }
  return {
    queued,
    next: async (match = () => true, timeoutMs = READ_TIMEOUT_MS) => {
      return (await take(match, timeoutMs, 'a matching JSON-RPC line')).message
    },
    answer: async (id, timeoutMs = READ_TIMEOUT_MS) => {
      const { message, before } = await take(isAnswerTo(id), timeoutMs, `the answer to request ${JSON.stringify(id)}`, true)
      return { response: message, before }
    }
  }
}
