// examples/routes-as-tools.js, run from dist/ as `npm run example:routes` runs it (npm test builds
// first): its routes are tools, the editor may add a book, the viewer gets the route's own 403.
import t from 'tap'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { connectStreamable } from '../helpers/clients.js'

const example = fileURLToPath(new URL('../../examples/routes-as-tools.js', import.meta.url))
const READY = /listening: (http:\/\/\S+)\/mcp[\s\S]*editor token[^:]*: (\S+)\n[\s\S]*viewer token[^:]*: +(\S+)\n/

t.test('the routes example serves its API as tools, each route deciding for itself', async (t) => {
  const child = spawn(process.execPath, [example, '--port', '0'], { stdio: ['ignore', 'ignore', 'pipe'] })
  t.teardown(() => { child.kill('SIGTERM') })
  let stderr = ''
  while (!READY.test(stderr)) {
    const [chunk] = await once(child.stderr, 'data') as [Buffer]
    stderr += chunk.toString()
  }
  const [, base, editor, viewer] = READY.exec(stderr) as unknown as [string, string, string, string]

  const { client: asViewer } = await connectStreamable(`${base}/mcp`, { headers: { authorization: `Bearer ${viewer}` } })
  t.teardown(() => asViewer.close())
  t.strictSame((await asViewer.listTools()).tools.map((tool) => tool.name), ['listBooks', 'getBook', 'addBook'], 'the internal export route is no tool')
  t.match((await asViewer.callTool({ name: 'getBook', arguments: { id: 2 } })).structuredContent, { title: 'Kindred' })
  t.strictSame(await asViewer.callTool({ name: 'addBook', arguments: { title: 'Dawn', author: 'Octavia E. Butler' } }), {
    content: [{ type: 'text', text: '403 Forbidden: {"statusCode":403,"error":"Forbidden","message":"only editors add books"}' }], isError: true
  })

  const { client: asEditor } = await connectStreamable(`${base}/mcp`, { headers: { authorization: `Bearer ${editor}` } })
  t.teardown(() => asEditor.close())
  t.match((await asEditor.callTool({ name: 'addBook', arguments: { title: 'Dawn', author: 'Octavia E. Butler', year: 1987 } })).structuredContent, { id: 3, title: 'Dawn' })
  const listed = await asViewer.callTool({ name: 'listBooks', arguments: { author: 'Octavia E. Butler' } })
  t.strictSame((listed.structuredContent as { books: Array<{ title: string }> }).books.map((book) => book.title), ['Kindred', 'Dawn'])

  await asViewer.close()
  await asEditor.close()
  child.kill('SIGTERM')
  const [code] = await once(child, 'exit') as [number | null]
  t.equal(code, 0, 'SIGTERM stops it cleanly')
})
