import { complete } from '../methods/completion.js'
import { getPrompt, listPrompts } from '../methods/prompts.js'
import { listResources, listResourceTemplates, readResource } from '../methods/resources.js'
import { callTool, listTools } from '../methods/tools.js'
import { listen } from '../listen/method.js'
import type { MethodHandler } from '../methods/types.js'
import { cancelTask, getTask, updateTask } from '../tasks/methods.js'
import { discover } from './discover.js'
import { withInputRequests } from './mrtr.js'

/**
 * The methods a 2026-07-28 request may call. Absent on purpose, because the
 * revision removed them: `initialize` (no handshake), `ping`,
 * `logging/setLevel` (the level travels in each request's `_meta`),
 * `resources/subscribe` and `resources/unsubscribe` (replaced by
 * `subscriptions/listen`). Anything not listed is -32601 (HTTP 404).
 * Features of the revision that arrive later add their entries here. Each
 * handler returns a fresh result object: the result shaping completes it in
 * place (`shaping.ts`). The three methods that may answer `input_required` go
 * through multi-round-trip handling (`mrtr.ts`).
 */
export const MODERN_METHODS: ReadonlyMap<string, MethodHandler> = new Map<string, MethodHandler>([
  ['server/discover', discover],
  ['tools/list', listTools],
  ['tools/call', withInputRequests('tools/call', callTool)],
  ['resources/list', listResources],
  ['resources/templates/list', listResourceTemplates],
  ['resources/read', withInputRequests('resources/read', readResource)],
  ['prompts/list', listPrompts],
  ['prompts/get', withInputRequests('prompts/get', getPrompt)],
  ['completion/complete', complete],
  // The Tasks extension (io.modelcontextprotocol/tasks, SEP-2663); tasks/result and tasks/list are gone from it.
  ['tasks/get', getTask],
  ['tasks/update', updateTask],
  ['tasks/cancel', cancelTask],
  ['subscriptions/listen', listen]
])
