// The practical ceiling over stdio: newline-delimited JSON-RPC read from stdin, each answer
// written to stdout as soon as it is computed. Same TypeBox schema check as the others.
import { TypeCompiler } from '@sinclair/typebox/compiler'
import { control, ready } from './control.js'
import { AddSchema, addResult, SERVER_INFO } from './shared.js'

const checkAdd = TypeCompiler.Compile(AddSchema)

function answer (message) {
  const { id, method, params } = message
  if (id === undefined) return undefined
  switch (method) {
    case 'initialize':
      return { jsonrpc: '2.0', id, result: { protocolVersion: params?.protocolVersion ?? '2025-06-18', capabilities: { tools: {} }, serverInfo: SERVER_INFO } }
    case 'tools/call': {
      const args = params?.arguments ?? {}
      if (params?.name !== 'add') return { jsonrpc: '2.0', id, error: { code: -32602, message: 'Unknown tool' } }
      if (!checkAdd.Check(args)) return { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'Invalid arguments' }], isError: true } }
      return { jsonrpc: '2.0', id, result: addResult(args) }
    }
    default:
      return { jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } }
  }
}

let pending = ''
process.stdin.setEncoding('utf8')
process.stdin.on('data', (chunk) => {
  pending += chunk
  let newline = pending.indexOf('\n')
  while (newline !== -1) {
    const line = pending.slice(0, newline)
    pending = pending.slice(newline + 1)
    if (line.length > 0) {
      const reply = answer(JSON.parse(line))
      if (reply !== undefined) process.stdout.write(JSON.stringify(reply) + '\n')
    }
    newline = pending.indexOf('\n')
  }
})
control()
ready()
