// Fixtures of the conformance suite's input-required-result-* scenarios (MCP 2026-07-28
// multi-round-trip requests, SEP-2322).
// Plain handlers: ctx.elicit/sample/listRoots end a 2026-07-28 call with input_required and the
// retry runs the handler again with the answers; `key` names each question as the scenarios expect.

const text = (value) => ({ content: [{ type: 'text', text: value }] })

const NAME = {
  message: 'What is your name?',
  requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }
}
const CONFIRM = {
  message: 'Please confirm',
  requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] }
}
const CAPITAL = {
  messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }],
  maxTokens: 100
}

/** The text of a sampling result, whether its content is one block or several. */
function sampledText (result) {
  const blocks = Array.isArray(result.content) ? result.content : [result.content]
  return blocks.map((block) => block?.text ?? '').join('')
}

/** @param {import('../../dist/index.js').MCPServer} server */
export function registerInputRequiredFixtures (server) {
  server.tool({ name: 'test_input_required_result_elicitation', description: 'Asks the user for a name (key user_name), then greets them' }, async (_args, ctx) => {
    const answer = await ctx.elicit(NAME, { key: 'user_name' })
    return text(answer.action === 'accept' ? `Hello, ${answer.content?.name}!` : `No name given (${answer.action})`)
  })

  server.tool({ name: 'test_input_required_result_sampling', description: 'Asks the client model a question (key capital_question)' }, async (_args, ctx) => {
    const answer = await ctx.sample(CAPITAL, { key: 'capital_question' })
    return text(`Model answer: ${sampledText(answer)}`)
  })

  server.tool({ name: 'test_input_required_result_list_roots', description: 'Lists the client roots (key client_roots)' }, async (_args, ctx) => {
    const { roots } = await ctx.listRoots({ key: 'client_roots' })
    return text(`Client roots: ${roots.map((root) => root.uri).join(', ')}`)
  })

  server.tool({ name: 'test_input_required_result_request_state', description: 'Asks for a confirmation; the answer comes back with the signed requestState' }, async (_args, ctx) => {
    const answer = await ctx.elicit(CONFIRM, { key: 'confirm' })
    // The framework verified the echoed requestState before this run: signature, caller, arguments, expiry.
    return text(`state-ok: confirmation ${answer.action}`)
  })

  server.tool({ name: 'test_input_required_result_tampered_state', description: 'Asks for a confirmation; a modified requestState is refused' }, async (_args, ctx) => {
    const answer = await ctx.elicit(CONFIRM, { key: 'confirm' })
    return text(`confirmation ${answer.action}`)
  })

  server.tool({ name: 'test_input_required_result_multiple_inputs', description: 'Asks for a name, a model greeting and the roots in one round' }, async (_args, ctx) => {
    const [user, greeting, { roots }] = await Promise.all([
      ctx.elicit(NAME, { key: 'user_name' }),
      ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }], maxTokens: 50 }, { key: 'greeting' }),
      ctx.listRoots({ key: 'client_roots' })
    ])
    return text(`${sampledText(greeting)} ${user.content?.name ?? 'stranger'} (${roots.length} roots)`)
  })

  server.tool({ name: 'test_input_required_result_multi_round', description: 'Asks two questions, one round each' }, async (_args, ctx) => {
    const step1 = await ctx.elicit({ ...NAME, message: 'Step 1: What is your name?' }, { key: 'step1' })
    const step2 = await ctx.elicit({
      message: 'Step 2: What is your favorite color?',
      requestedSchema: { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] }
    }, { key: 'step2' })
    return text(`${step1.content?.name} likes ${step2.content?.color}`)
  })

  server.tool({ name: 'test_input_required_result_capabilities', description: 'Asks only what the client declared it can answer' }, async (_args, ctx) => {
    // An ask for an undeclared capability rejects with -32021 at once; the others become input requests.
    const asks = await Promise.allSettled([ctx.elicit(NAME, { key: 'user_name' }), ctx.sample(CAPITAL, { key: 'capital_question' })])
    return text(asks.map((ask) => ask.status === 'fulfilled' ? 'answered' : `unavailable: ${ask.reason.message}`).join('; '))
  })

  server.prompt({ name: 'test_input_required_result_prompt', description: 'Asks the user for context before building the prompt' }, async (_args, ctx) => {
    const answer = await ctx.elicit({
      message: 'What context should the prompt use?',
      requestedSchema: { type: 'object', properties: { context: { type: 'string' } }, required: ['context'] }
    }, { key: 'user_context' })
    return { messages: [{ role: 'user', content: { type: 'text', text: `Use this context: ${answer.content?.context ?? 'none'}` } }] }
  })
}
