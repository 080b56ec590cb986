// What every benchmark server does, whatever its framework: one tool, `add`, whose arguments are
// validated against the same schema ({ a: number, b: number }, both required) before it answers
// `{ content: [{ type: 'text', text: String(a + b) }] }`.
import { Type } from '@sinclair/typebox'

export const AddSchema = Type.Object({ a: Type.Number(), b: Type.Number() })
export const ADD_DESCRIPTION = 'Adds two numbers'

export function addResult ({ a, b }) {
  return { content: [{ type: 'text', text: String(a + b) }] }
}

export const SERVER_INFO = { name: 'bench', version: '1.0.0' }
