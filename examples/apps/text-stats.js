// The demo's text_stats tool and its MCP Apps view (text-stats.html beside this file). Registered by
// examples/demo-server.js, and by the browser test (test/browser/) on the app that serves its host page.
import { fileURLToPath } from 'node:url'
import { Type } from '../../dist/index.js'

/** Registers text_stats and its view on a server or on `app.mcp`. */
export function registerTextStats (mcp) {
  mcp.tool({
    name: 'text_stats',
    description: 'Counts characters, words and lines of a text',
    inputSchema: Type.Object({ text: Type.String() }),
    outputSchema: Type.Object({ characters: Type.Integer(), words: Type.Integer(), lines: Type.Integer() }),
    annotations: { readOnlyHint: true },
    // Hosts that render MCP Apps show the result in the view; the others show the text content.
    ui: { resourceUri: 'ui://demo/text-stats' }
  }, async ({ text }) => {
    const stats = {
      characters: [...text].length,
      words: text.split(/\s+/).filter(Boolean).length,
      lines: text === '' ? 0 : text.split('\n').length
    }
    return {
      content: [{ type: 'text', text: `${stats.characters} characters, ${stats.words} words, ${stats.lines} lines` }],
      structuredContent: stats
    }
  })

  // The view shows the result its host hands it, and counts again by calling text_stats through the host.
  mcp.appResource({
    uri: 'ui://demo/text-stats',
    name: 'text-stats-view',
    description: 'Shows text statistics; counts again on request',
    file: fileURLToPath(new URL('./text-stats.html', import.meta.url)),
    prefersBorder: true
  })
}
