import type { Envelope } from '../../ports.js'
import type { StreamEntry } from '../client.js'

// The fields of a bus entry, written by the writer and read back by the reader. Writes go through ioredis' queue in
// order, and those unanswered when a connection drops are sent again after it is back, so an
// entry can reach Redis twice. Each entry therefore carries its sender (`f`), the sender's boot
// (`b`: a restarted instance may reuse its id) and a sequence number (`n`) increasing over all the
// sender's writes, and a reader drops what it has seen already. `m` is the message's JSON; `o`,
// on a copy written again after a Redis restart, the sequence number of the entry it replaces.

/** One write of one sender: what makes its entry unique, and the message's JSON. */
export interface Stamp {
  readonly from: string
  readonly boot: string
  /** The sender's sequence number of this write (`n`). */
  readonly seq: number
  /** The message's JSON (`m`). */
  readonly json: string
}

export interface ParsedEntry<M> {
  readonly envelope: Envelope<M>
  readonly boot: string
  readonly seq: number
  /** The sequence number of the entry this copy writes again (`o`). */
  readonly replaces?: number
}

/** The stream fields of a write; `replaces`: the sequence number of the entry it writes again. */
export function fieldsOf (stamp: Stamp, replaces?: number): string[] {
  const fields = ['f', stamp.from, 'b', stamp.boot, 'n', String(stamp.seq), 'm', stamp.json]
  return replaces === undefined ? fields : [...fields, 'o', String(replaces)]
}

/** Undefined for an entry that is not a bus message (missing fields, or a message that is not JSON). */
export function parseEntry<M> ([id, fields]: StreamEntry): ParsedEntry<M> | undefined {
  const values: Record<string, string> = {}
  for (let i = 0; i + 1 < fields.length; i += 2) values[fields[i] as string] = fields[i + 1] as string
  const { f: from, b: boot, n, m, o } = values
  if (from === undefined || boot === undefined || n === undefined || m === undefined) return undefined
  let message: Record<string, unknown>
  try {
    message = JSON.parse(m) as Record<string, unknown>
  } catch {
    return undefined
  }
  return { envelope: { from, position: id, message: message as M }, boot, seq: Number(n), ...(o === undefined ? {} : { replaces: Number(o) }) }
}
