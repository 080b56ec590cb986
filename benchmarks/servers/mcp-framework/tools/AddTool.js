// The hello-world tool as mcp-framework's README writes one: a class with a zod schema whose
// fields are described, discovered from this directory at start-up.
import { MCPTool } from 'mcp-framework'
import { z } from '../zod.js'

export default class AddTool extends MCPTool {
  name = 'add'
  description = 'Adds two numbers'
  schema = z.object({
    a: z.number().describe('First number'),
    b: z.number().describe('Second number')
  })

  // An array of content blocks is sent as is (a bare string is sent JSON-encoded, as "\"3\"",
  // and a lone text block as its JSON): the same answer as every other server's.
  async execute ({ a, b }) {
    return [{ type: 'text', text: String(a + b) }]
  }
}
