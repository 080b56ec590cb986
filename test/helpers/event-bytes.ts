// The kept-event bounds' tests (in process and on Redis) share their tool and their two probes: a
// call whose answer becomes an event stream, and whether a resume from its log event replays it.
import type { Test } from 'tap'
import type { MCPRegistryApi } from '../../src/index.js'
import { BOTH, messageOf, raw } from './streamable-raw.js'

/** Characters of the `big` tool's answer. */
export const BIG_ANSWER = 6500

/** `big`: logs (so its answer becomes an event stream with ids), then answers {@link BIG_ANSWER} characters. */
export function registerBig (api: MCPRegistryApi): void {
  api.tool({ name: 'big', description: 'Logs (the answer becomes an event stream), then answers 6500 characters' }, async (_args, ctx) => {
    ctx.log('info', 'starting')
    return { content: [{ type: 'text', text: 'x'.repeat(BIG_ANSWER) }] }
  })
}

const sessionHeaders = (session: string): Record<string, string> => ({ 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' })

/** Calls `big` on `session` through `url` from `address`; returns the id of the log event before the answer. */
export async function callBig (t: Test, url: string, session: string, address: string): Promise<string> {
  const reply = await raw(url, 'POST', { ...BOTH, ...sessionHeaders(session) }, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'big' } }, { localAddress: address })
  const events = (await reply.rest()).filter((event) => event.data !== undefined && event.data !== '')
  t.equal(messageOf(events.at(-1) ?? {}).result.content[0].text.length, BIG_ANSWER, 'answered live, kept or not')
  const log = events.find((event) => messageOf(event).method === 'notifications/message')
  if (log?.id === undefined) throw new Error('no log event with an id')
  return log.id
}

/** Whether the answer after `lastEventId` is kept: a resume through `url` replays it (200), or the id is gone (400). */
export async function resumesBig (t: Test, url: string, session: string, lastEventId: string): Promise<boolean> {
  const resume = await raw(url, 'GET', { accept: 'text/event-stream', ...sessionHeaders(session), 'last-event-id': lastEventId })
  if (resume.status === 400) {
    await resume.text()
    return false
  }
  t.equal(resume.status, 200)
  const replayed = (await resume.rest()).filter((event) => event.data !== undefined && event.data !== '')
  return messageOf(replayed[0] ?? {}).result?.content[0].text.length === BIG_ANSWER
}
