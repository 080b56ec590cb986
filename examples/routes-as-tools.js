#!/usr/bin/env node
// Routes as tools: a small bookshelf API whose routes MCP clients call as tools, through the
// routes' own hooks. Reading is open to any signed-in caller; adding a book is for editors, a rule
// the route checks itself (its own onRequest hook), exactly as for a direct HTTP call: the tool
// call carries the caller's token to it. An internal route stays out of MCP.
//   npm run example:routes                       builds dist/ first
//   node examples/routes-as-tools.js [--port 8080] [--host 127.0.0.1]
// It prints two demo tokens (an editor's and a viewer's) signed with a random secret (or
// JWT_SECRET): give one to your MCP client as `Authorization: Bearer <token>`.
import { randomBytes } from 'node:crypto'
import { parseArgs } from 'node:util'
import Fastify from 'fastify'
import { createSigner, createVerifier } from 'fast-jwt'
import mcp from '../dist/index.js'

const { values: flags } = parseArgs({
  options: { port: { type: 'string', default: '8080' }, host: { type: 'string', default: '127.0.0.1' } }
})
const secret = process.env.JWT_SECRET ?? randomBytes(32).toString('base64url')
const verify = createVerifier({ key: secret, algorithms: ['HS256'] })

// Logs on stderr: stdout stays free for whoever runs this.
const app = Fastify({ logger: { level: 'warn', stream: process.stderr } })

// First, so that every route declared after it is seen.
await app.register(mcp, {
  name: 'bookshelf',
  version: '1.0.0',
  auth: { type: 'jwt', options: { secret, algorithms: ['HS256'] } },
  routes: {
    include: [{ url: '/books' }, { url: '/books/**' }],
    exclude: [{ tag: 'internal' }],
    // Passed on to the routes besides the caller's token.
    forwardHeaders: ['accept-language']
  }
})

// Shared schemas: the tools get them inlined.
app.addSchema({
  $id: 'book',
  type: 'object',
  properties: { id: { type: 'integer' }, title: { type: 'string' }, author: { type: 'string' }, year: { type: 'integer' } },
  required: ['id', 'title', 'author']
})
app.addSchema({
  $id: 'newBook',
  type: 'object',
  properties: { title: { type: 'string', minLength: 1 }, author: { type: 'string', minLength: 1 }, year: { type: 'integer', minimum: 0 } },
  required: ['title', 'author'],
  additionalProperties: false
})

const books = new Map([
  [1, { id: 1, title: 'The Left Hand of Darkness', author: 'Ursula K. Le Guin', year: 1969 }],
  [2, { id: 2, title: 'Kindred', author: 'Octavia E. Butler', year: 1979 }]
])

/** The route's own rule, knowing nothing of MCP: only editors add books. */
async function editorsOnly (request, reply) {
  let claims
  try {
    claims = verify((request.headers.authorization ?? '').replace(/^Bearer /, ''))
  } catch {
    return reply.code(401).send({ statusCode: 401, error: 'Unauthorized', message: 'sign in first' })
  }
  if (claims.role !== 'editor') return reply.code(403).send({ statusCode: 403, error: 'Forbidden', message: 'only editors add books' })
}

app.get('/books', {
  schema: {
    operationId: 'listBooks',
    summary: 'List books',
    description: 'Books on the shelf, optionally by one author',
    querystring: { type: 'object', properties: { author: { type: 'string', description: 'Exact author name' } } },
    response: { 200: { type: 'object', properties: { books: { type: 'array', items: { $ref: 'book#' } } }, required: ['books'] } }
  }
}, async (request) => {
  const { author } = request.query
  return { books: [...books.values()].filter((book) => author === undefined || book.author === author) }
})

app.get('/books/:id', {
  schema: {
    operationId: 'getBook',
    summary: 'Get a book',
    params: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
    response: { 200: { $ref: 'book#' } }
  }
}, async (request, reply) => {
  const book = books.get(request.params.id)
  return book ?? reply.code(404).send({ statusCode: 404, error: 'Not Found', message: `no book ${request.params.id}` })
})

app.post('/books', {
  onRequest: editorsOnly,
  schema: { operationId: 'addBook', summary: 'Add a book', body: { $ref: 'newBook#' }, response: { 201: { $ref: 'book#' } } }
}, async (request, reply) => {
  const book = { id: books.size + 1, ...request.body }
  books.set(book.id, book)
  return reply.code(201).send(book)
})

// Matched by `include`, kept out by `exclude` (its tag): never a tool.
app.get('/books/export', { schema: { tags: ['internal'] } }, async (_request, reply) =>
  reply.type('text/csv').send([...books.values()].map((book) => `${book.id},${book.title},${book.author}`).join('\n')))

const base = await app.listen({ port: Number(flags.port), host: flags.host })
const sign = createSigner({ key: secret, algorithm: 'HS256', expiresIn: 3_600_000 })
process.stderr.write([
  `bookshelf listening: ${base}/mcp (Streamable HTTP) and ${base}/sse (legacy SSE)`,
  `editor token (may add books): ${sign({ sub: 'edith', role: 'editor' })}`,
  `viewer token (reads only):    ${sign({ sub: 'victor', role: 'viewer' })}`,
  ''
].join('\n'))

for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => { app.close().then(() => process.exit(0), () => process.exit(1)) })
