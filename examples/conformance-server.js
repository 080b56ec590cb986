#!/usr/bin/env node
// The server the official MCP conformance suite (@modelcontextprotocol/conformance) tests:
// every tool, resource and prompt its server scenarios call, built only with the public API.
//   node examples/conformance-server.js [--port 0] [--host 127.0.0.1]
// Prints "listening <url>" once serving; `npm run conformance` starts it and runs the suite
// against <url>/mcp. Stops on SIGINT/SIGTERM.
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { MCPServer, Type } from '../dist/index.js'
import { registerInputRequiredFixtures } from './conformance/input-required.js'
import { registerTaskFixtures } from './conformance-tasks.js'

const { values: flags } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    host: { type: 'string', default: '127.0.0.1' }
  }
})

const server = new MCPServer({
  name: 'fastify-mcp-server-conformance',
  version: '1.0.0',
  logLevel: 'warn',
  // The sep-2640-skills-directory scenario browses a skill's folders.
  skills: { directoryRead: true },
  transport: { type: 'sse', options: { port: Number(flags.port), host: flags.host } }
})

// A 1x1 transparent PNG.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='

/** A valid WAV file: 8 kHz mono 16-bit PCM with one silent sample. */
function silentWav () {
  const samples = Buffer.alloc(2)
  const header = Buffer.alloc(44)
  header.write('RIFF', 0)
  header.writeUInt32LE(36 + samples.length, 4)
  header.write('WAVEfmt ', 8)
  header.writeUInt32LE(16, 16) // fmt chunk size
  header.writeUInt16LE(1, 20) // PCM
  header.writeUInt16LE(1, 22) // channels
  header.writeUInt32LE(8000, 24) // sample rate
  header.writeUInt32LE(16000, 28) // byte rate
  header.writeUInt16LE(2, 32) // block align
  header.writeUInt16LE(16, 34) // bits per sample
  header.write('data', 36)
  header.writeUInt32LE(samples.length, 40)
  return Buffer.concat([header, samples]).toString('base64')
}
const WAV = silentWav()

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const text = (value) => ({ content: [{ type: 'text', text: value }] })

// ---- tools ------------------------------------------------------------------

server.tool({ name: 'test_simple_text', description: 'Returns a simple text result' },
  async () => text('This is a simple text response for testing.'))

server.tool({ name: 'test_image_content', description: 'Returns an image' },
  async () => ({ content: [{ type: 'image', data: PNG, mimeType: 'image/png' }] }))

server.tool({ name: 'test_audio_content', description: 'Returns an audio clip' },
  async () => ({ content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }] }))

server.tool({ name: 'test_embedded_resource', description: 'Returns an embedded text resource' }, async () => ({
  content: [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }]
}))

server.tool({ name: 'test_multiple_content_types', description: 'Returns text, an image and a resource' }, async () => ({
  content: [
    { type: 'text', text: 'Multiple content types test:' },
    { type: 'image', data: PNG, mimeType: 'image/png' },
    { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: JSON.stringify({ test: 'data', value: 123 }) } }
  ]
}))

server.tool({ name: 'test_tool_with_logging', description: 'Logs three messages while it runs' }, async (_args, ctx) => {
  ctx.log('info', 'Tool execution started', 'conformance')
  await sleep(50)
  ctx.log('info', 'Tool processing data', 'conformance')
  await sleep(50)
  ctx.log('info', 'Tool execution completed', 'conformance')
  return text('Logging test completed')
})

server.tool({ name: 'test_error_handling', description: 'Always fails with a tool error' }, async () => ({
  isError: true,
  content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }]
}))

server.tool({ name: 'test_tool_with_progress', description: 'Reports progress 0, 50, 100 of 100' }, async (_args, ctx) => {
  // ctx.progress echoes the client's progressToken as sent (the SDK client sends a number) and is a no-op without one.
  for (const done of [0, 50, 100]) {
    ctx.progress(done, 100, `${done}%`)
    if (done < 100) await sleep(50)
  }
  return text('Progress test completed')
})

server.tool({
  name: 'test_sampling',
  description: 'Asks the client model to answer a prompt',
  inputSchema: Type.Object({ prompt: Type.String({ description: 'The prompt to send to the LLM' }) })
}, async ({ prompt }, ctx) => {
  const result = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 100 })
  return text(`LLM response: ${result.content?.text ?? JSON.stringify(result.content)}`)
})

server.tool({
  name: 'test_elicitation',
  description: 'Asks the user for a username and an email address',
  inputSchema: Type.Object({ message: Type.String({ description: 'The message to show the user' }) })
}, async ({ message }, ctx) => {
  const result = await ctx.elicit({
    message,
    requestedSchema: {
      type: 'object',
      properties: {
        username: { type: 'string', description: "User's response" },
        email: { type: 'string', description: "User's email address", format: 'email' }
      },
      required: ['username', 'email']
    }
  })
  return text(`User response: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`)
})

server.tool({ name: 'test_elicitation_sep1034_defaults', description: 'Elicits fields that all have defaults (SEP-1034)' }, async (_args, ctx) => {
  const result = await ctx.elicit({
    message: 'Please confirm or change these values',
    requestedSchema: {
      type: 'object',
      properties: {
        name: { type: 'string', description: 'User name', default: 'John Doe' },
        age: { type: 'integer', description: 'User age', default: 30 },
        score: { type: 'number', description: 'User score', default: 95.5 },
        status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
        verified: { type: 'boolean', description: 'Verification status', default: true }
      },
      required: []
    }
  })
  return text(`Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`)
})

server.tool({ name: 'test_elicitation_sep1330_enums', description: 'Elicits every kind of enum (SEP-1330)' }, async (_args, ctx) => {
  const choices = (prefix, titles) => titles.map((title, i) => ({ const: `${prefix}${i + 1}`, title }))
  const result = await ctx.elicit({
    message: 'Pick some options',
    requestedSchema: {
      type: 'object',
      properties: {
        untitledSingle: { type: 'string', description: 'Pick one', enum: ['option1', 'option2', 'option3'] },
        titledSingle: { type: 'string', description: 'Pick one (titled)', oneOf: choices('value', ['First Option', 'Second Option', 'Third Option']) },
        legacyEnum: { type: 'string', description: 'Pick one (legacy names)', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] },
        untitledMulti: { type: 'array', description: 'Pick several', minItems: 1, maxItems: 3, items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
        titledMulti: { type: 'array', description: 'Pick several (titled)', minItems: 1, maxItems: 3, items: { anyOf: choices('value', ['First Choice', 'Second Choice', 'Third Choice']) } }
      },
      required: []
    }
  })
  return text(`Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`)
})

server.tool({
  name: 'json_schema_2020_12_tool',
  description: 'Takes arguments described with JSON Schema 2020-12 features',
  // Plain JSON Schema reaches clients as written: $schema, $defs, $anchor, allOf/anyOf, if/then/else and
  // additionalProperties included (SEP-1613, SEP-2106).
  inputSchema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    $defs: { address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
    properties: {
      name: { type: 'string' },
      address: { $ref: '#/$defs/address' },
      contactMethod: { type: 'string', enum: ['phone', 'email'] },
      phone: { type: 'string' },
      email: { type: 'string' }
    },
    allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
    if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
    then: { required: ['phone'] },
    else: { required: ['email'] },
    additionalProperties: false
  }
}, async (args) => text(`Received: ${JSON.stringify(args)}`))

// ---- 2026-07-28 fixtures (server-stateless, http-custom-header-server-validation) ----------

server.tool({ name: 'test_missing_capability', description: 'Needs sampling: a 2026-07-28 call without the capability gets -32021' }, async (_args, ctx) => {
  const result = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }], maxTokens: 10 })
  return text(`LLM response: ${result.content?.text ?? ''}`)
})

server.tool({ name: 'test_streaming_elicitation', description: 'Asks the user for a name (an input request on 2026-07-28, never a server request)' }, async (_args, ctx) => {
  const result = await ctx.elicit({ message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } })
  return text(`User response: action=${result.action}`)
})

server.tool({ name: 'test_logging_tool', description: 'Logs at every level; only requests that ask for logs get them' }, async (_args, ctx) => {
  for (const level of ['debug', 'info', 'warning', 'error']) ctx.log(level, `a ${level} message`, 'conformance')
  return text('Logged')
})

server.tool({ name: 'test_trigger_tool_change', description: 'Adds and removes a tool, so that the tool list changes' }, async () => {
  server.tool({ name: 'test_transient_tool', description: 'Exists for a moment' }, async () => text('transient')).remove()
  return text('The tool list changed')
})

server.tool({ name: 'test_trigger_prompt_change', description: 'Adds and removes a prompt, so that the prompt list changes' }, async () => {
  server.prompt({ name: 'test_transient_prompt', description: 'Exists for a moment' }, async () => ({ messages: [] })).remove()
  return text('The prompt list changed')
})

server.tool({
  name: 'test_header_param',
  description: 'Mirrors its region argument into the Mcp-Param-Region header (x-mcp-header, SEP-2243)',
  inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } }, required: ['region'] }
}, async ({ region }) => text(`Region: ${region}`))

server.tool({ name: 'test_reconnection', description: 'Closes its stream mid-call; the result arrives after the client reconnects' }, async (_args, ctx) => {
  // Streamable HTTP with resumption: the client reconnects with Last-Event-ID and gets the rest.
  ctx.closeStream()
  await sleep(100)
  return text('Reconnection test completed successfully: the result was delivered after the stream was closed')
})

// The tasks-* scenarios' tools (greet, slow_compute, failing_job, ...): the Tasks extension.
registerTaskFixtures(server)

// ---- resources ----------------------------------------------------------------

server.resource({ uri: 'test://static-text', name: 'static-text', description: 'A static text resource', mimeType: 'text/plain' },
  async (uri) => ({ contents: [{ uri, mimeType: 'text/plain', text: 'This is the content of the static text resource.' }] }))

server.resource({ uri: 'test://static-binary', name: 'static-binary', description: 'A static binary resource (a PNG)', mimeType: 'image/png' },
  async (uri) => ({ contents: [{ uri, mimeType: 'image/png', blob: PNG }] }))

server.resource({ uri: 'test://watched-resource', name: 'watched-resource', description: 'A resource clients may subscribe to', mimeType: 'text/plain' },
  async (uri) => ({ contents: [{ uri, mimeType: 'text/plain', text: `Watched resource, read at ${new Date().toISOString()}` }] }))

server.resource({ uri: 'test://template/{id}/data', name: 'template-data', description: 'Data for an id', mimeType: 'application/json' },
  async (uri, ctx) => ({
    contents: [{ uri, mimeType: 'application/json', text: JSON.stringify({ id: ctx.params.id, templateTest: true, data: `Data for ID: ${ctx.params.id}` }) }]
  }))

// ---- skills (sep-2640-skills-*): a skill with nested folders, from disk -------------

server.skills(fileURLToPath(new URL('./conformance/skills', import.meta.url)))

// ---- prompts ------------------------------------------------------------------

server.prompt({ name: 'test_simple_prompt', description: 'A prompt without arguments' }, async () => ({
  messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }]
}))

server.prompt({
  name: 'test_prompt_with_arguments',
  description: 'A prompt with two required arguments',
  arguments: [
    { name: 'arg1', description: 'First test argument', required: true, complete: (value) => ['test', 'testing', 'tested'].filter((v) => v.startsWith(value)) },
    { name: 'arg2', description: 'Second test argument', required: true }
  ]
}, async ({ arg1, arg2 }) => ({
  messages: [{ role: 'user', content: { type: 'text', text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` } }]
}))

server.prompt({
  name: 'test_prompt_with_embedded_resource',
  description: 'A prompt that embeds a resource',
  arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }]
}, async ({ resourceUri }) => ({
  messages: [
    { role: 'user', content: { type: 'resource', resource: { uri: resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' } } },
    { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } }
  ]
}))

server.prompt({ name: 'test_prompt_with_image', description: 'A prompt with an image' }, async () => ({
  messages: [
    { role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
    { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } }
  ]
}))

// ---- 2026-07-28 multi-round-trip requests (input-required-result-*) ------------

registerInputRequiredFixtures(server)

// ---- lifecycle ----------------------------------------------------------------

const info = await server.start()
process.stdout.write(`listening ${info.url}\n`)
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => { server.stop().then(() => process.exit(0), () => process.exit(1)) })
}
