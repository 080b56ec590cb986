import { InvalidDefinitionError } from '../../errors.js'
import type { Registry, ToolShaper } from '../../protocol/registry.js'
import { isRecord } from '../../util/is-record.js'

const VISIBILITY: readonly unknown[] = ['model', 'app']
/** The flat key of the first drafts, deprecated by `_meta.ui.resourceUri` but still what older hosts read. */
const FLAT_KEY = 'ui/resourceUri'

/**
 * A tool's `ui` on the wire: `_meta.ui` (`resourceUri`, `visibility`) beside the tool's own
 * `_meta`, and the flat `_meta["ui/resourceUri"]` (ext-apps `apps.mdx`, Resource Discovery).
 */
export const linkTool: ToolShaper = (definition, wire) => {
  const link: unknown = definition.ui
  if (link === undefined) return
  const tool = definition.name
  if (!isRecord(link)) throw invalid(tool, 'ui must be an object such as { resourceUri: \'ui://app/view\' }')
  const { resourceUri, visibility, ...extra } = link
  const unknown = Object.keys(extra)
  if (unknown.length > 0) throw invalid(tool, `ui has no field ${JSON.stringify(unknown[0])}; it takes resourceUri and visibility`)
  if (typeof resourceUri !== 'string' || !resourceUri.startsWith('ui://')) {
    throw invalid(tool, `ui.resourceUri must be the ui:// URI of an app resource; got ${JSON.stringify(resourceUri)}`)
  }
  const ui: Record<string, unknown> = { resourceUri }
  if (visibility !== undefined) {
    if (!Array.isArray(visibility) || visibility.length === 0 || visibility.some((who) => !VISIBILITY.includes(who)) || new Set(visibility).size !== visibility.length) {
      throw invalid(tool, `ui.visibility must list 'model' and/or 'app', each once; got ${JSON.stringify(visibility)}`)
    }
    ui.visibility = [...visibility]
  }
  const meta = isRecord(wire._meta) ? wire._meta : {}
  if ('ui' in meta || FLAT_KEY in meta) throw invalid(tool, 'give the app link as ui, not also in _meta')
  wire._meta = { ...meta, ui, [FLAT_KEY]: resourceUri }
}

/**
 * Every tool's app link must name a registered resource once registration is over: a tool may be
 * registered before its page, not without it. Links written in `_meta` by hand are checked too.
 */
export function verifyLinks (registry: Registry): void {
  for (const [name, tool] of registry.tools) {
    const meta = tool.wire._meta
    if (!isRecord(meta)) continue
    const ui = meta.ui
    const uri = isRecord(ui) && typeof ui.resourceUri === 'string' ? ui.resourceUri : meta[FLAT_KEY]
    if (typeof uri === 'string' && registry.findResource(uri) === undefined) {
      throw invalid(name, `ui.resourceUri ${uri} names no registered resource; register it with appResource() before the server starts`)
    }
  }
}

function invalid (tool: string, problem: string): Error {
  return new InvalidDefinitionError('tool', `${tool}: ${problem}`)
}
