// The benchmark catalog: what a real business MCP server exposes. Ten domains (customers, orders,
// invoices...) times ten operations (get, list, create, update, archive, search, export,
// summarize, assign, validate) make 100 tools, each with an input and an output schema of nested
// objects, enums, arrays and shared definitions (`$ref`s); 20 prompts; 50 resources. Every
// framework serves the same catalog (servers/catalog-*.js); `catalogOf(size)` picks how much.
//
// Sizes: `large` (100 tools, 20 prompts, 50 resources), `demo` (the shape of
// examples/demo-server.js: 4 tools, 1 prompt, 2 resources), `one` (the called tool alone: what
// 100 tools cost beside 1), `hello` (the `add` tool of the published hello-world comparisons).
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { arr, bool, int, num, obj, opt, ref, sample, str, toJsonSchema } from './dsl.js'

const ID = (prefix) => str({ pattern: `^${prefix}_[A-Za-z0-9]{8,32}$`, example: `${prefix}_7Hq2KfL9xZ`, description: 'Stable identifier' })
const DATE = str({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', example: '2026-07-28', description: 'Calendar date, YYYY-MM-DD' })
const TIMESTAMP = str({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$', example: '2026-07-28T09:30:00Z', description: 'UTC timestamp' })

/** Shared definitions: the `$defs` of the JSON Schemas, the shared zod consts of the SDK servers. */
export const DEFS = {
  Money: obj({
    amount: num({ min: 0, description: 'Amount in the currency\'s major unit' }),
    currency: str({ enum: ['USD', 'EUR', 'GBP', 'JPY', 'CHF'], description: 'ISO 4217 code' })
  }, { description: 'An amount of money' }),
  Address: obj({
    line1: str({ minLength: 1, maxLength: 200, example: '12 Rue de la Paix' }),
    line2: opt(str({ maxLength: 200 })),
    city: str({ minLength: 1, maxLength: 100, example: 'Paris' }),
    postalCode: str({ pattern: '^[A-Za-z0-9 -]{3,10}$', example: '75002' }),
    country: str({ pattern: '^[A-Z]{2}$', example: 'FR', description: 'ISO 3166-1 alpha-2' })
  }, { description: 'A postal address' }),
  Contact: obj({
    name: str({ minLength: 1, maxLength: 120, example: 'Ada Lovelace' }),
    email: str({ pattern: '^[^@\\s]+@[^@\\s]+\\.[a-z]{2,}$', example: 'ada@example.com' }),
    phone: opt(str({ pattern: '^\\+?[0-9 ()-]{6,20}$', example: '+33 1 23 45 67 89' })),
    address: opt(ref('Address'))
  }, { description: 'A person to reach' }),
  Pagination: obj({
    cursor: opt(str({ maxLength: 200, description: 'Opaque cursor from the previous page' })),
    limit: opt(int({ min: 1, max: 100, description: 'Items per page' }))
  }),
  DateRange: obj({ from: DATE, to: opt(DATE) }, { description: 'Inclusive date range' }),
  Filter: obj({
    field: str({ enum: ['status', 'owner', 'region', 'createdAt', 'amount', 'tag'] }),
    op: str({ enum: ['eq', 'ne', 'lt', 'gt', 'contains', 'in'] }),
    value: str({ maxLength: 200, example: 'open' })
  }),
  LineItem: obj({
    sku: str({ pattern: '^[A-Z0-9-]{4,24}$', example: 'SKU-10442' }),
    quantity: int({ min: 1, max: 10000 }),
    unitPrice: ref('Money'),
    discount: opt(num({ min: 0, max: 1, description: 'Fraction off, 0 to 1' }))
  }),
  AuditStamp: obj({ by: ref('Contact'), at: TIMESTAMP, note: opt(str({ maxLength: 500 })) })
}

const TAGS = arr(str({ minLength: 1, maxLength: 40, example: 'priority' }), { maxItems: 20, description: 'Free-form labels' })

/** Each domain's record: what `create`, `update`, `validate` and `get` carry. */
const DOMAINS = [
  ['customers', 'cus', obj({ name: str({ minLength: 1, maxLength: 200, example: 'Analytical Engines Ltd' }), contact: ref('Contact'), billingAddress: ref('Address'), tier: str({ enum: ['free', 'pro', 'enterprise'] }), tags: opt(TAGS) })],
  ['orders', 'ord', obj({ customerId: ID('cus'), items: arr(ref('LineItem'), { minItems: 1, maxItems: 200 }), shipping: ref('Address'), total: ref('Money'), channel: str({ enum: ['web', 'phone', 'partner'] }), notes: opt(str({ maxLength: 1000 })) })],
  ['invoices', 'inv', obj({ orderId: ID('ord'), lines: arr(ref('LineItem'), { minItems: 1 }), due: DATE, amountDue: ref('Money'), status: str({ enum: ['draft', 'sent', 'paid', 'void'] }) })],
  ['products', 'prd', obj({ sku: str({ pattern: '^[A-Z0-9-]{4,24}$', example: 'SKU-10442' }), title: str({ minLength: 1, maxLength: 200, example: 'Difference engine' }), price: ref('Money'), dimensions: obj({ widthCm: num({ min: 0 }), heightCm: num({ min: 0 }), weightKg: num({ min: 0 }) }), categories: arr(str({ enum: ['hardware', 'software', 'service', 'spare'] }), { minItems: 1, maxItems: 4 }) })],
  ['shipments', 'shp', obj({ orderId: ID('ord'), carrier: str({ enum: ['ups', 'dhl', 'fedex', 'post'] }), from: ref('Address'), to: ref('Address'), parcels: arr(obj({ weightKg: num({ min: 0 }), tracking: opt(str({ maxLength: 64 })) }), { minItems: 1, maxItems: 50 }) })],
  ['tickets', 'tkt', obj({ subject: str({ minLength: 1, maxLength: 300, example: 'Printer on fire' }), requester: ref('Contact'), severity: str({ enum: ['low', 'medium', 'high', 'critical'] }), body: str({ maxLength: 10000 }), tags: opt(TAGS) })],
  ['projects', 'prj', obj({ name: str({ minLength: 1, maxLength: 200, example: 'Analytical engine' }), owner: ref('Contact'), schedule: ref('DateRange'), budget: ref('Money'), milestones: arr(obj({ title: str({ maxLength: 200 }), due: DATE, done: bool() }), { maxItems: 100 }) })],
  ['users', 'usr', obj({ profile: ref('Contact'), role: str({ enum: ['viewer', 'editor', 'admin', 'owner'] }), locale: str({ pattern: '^[a-z]{2}(-[A-Z]{2})?$', example: 'en-GB' }), mfa: bool(), groups: opt(arr(str({ maxLength: 64 }), { maxItems: 50 })) })],
  ['payments', 'pay', obj({ invoiceId: ID('inv'), amount: ref('Money'), method: str({ enum: ['card', 'transfer', 'wallet'] }), payer: ref('Contact'), capturedAt: opt(TIMESTAMP) })],
  ['reports', 'rep', obj({ title: str({ minLength: 1, maxLength: 200, example: 'Quarterly revenue' }), range: ref('DateRange'), filters: arr(ref('Filter'), { maxItems: 10 }), audience: arr(ref('Contact'), { maxItems: 20 }), schedule: str({ enum: ['once', 'daily', 'weekly', 'monthly'] }) })]
]

/** Partial record: every property optional (an update's patch). */
const partial = (record) => obj(Object.fromEntries(Object.entries(record.props).map(([k, v]) => [k, opt(v)])))
const INCLUDE = arr(str({ enum: ['history', 'notes', 'attachments', 'metrics'] }), { maxItems: 4, description: 'Related data to embed' })
const SORT = obj({ field: str({ enum: ['createdAt', 'updatedAt', 'name', 'amount'] }), direction: str({ enum: ['asc', 'desc'] }) })
const METRICS = ['count', 'revenue', 'latencyMs', 'errors']
const SUMMARY = obj({ id: str({ maxLength: 64, example: 'cus_7Hq2KfL9xZ' }), title: str({ maxLength: 200, example: 'A matching record' }), score: opt(num({ min: 0, max: 1 })) })

/** The ten operations: title, input schema, output schema, annotations, given a domain's record. */
function operations (prefix, record) {
  const id = ID(prefix)
  const stored = obj({ id, version: int({ min: 1 }), record, updatedAt: TIMESTAMP, audit: opt(arr(ref('AuditStamp'), { maxItems: 50 })) })
  return {
    get: ['Fetch one record by id', obj({ id, include: opt(INCLUDE) }), stored, { readOnlyHint: true }],
    list: ['List records, filtered and sorted, a page at a time', obj({ page: opt(ref('Pagination')), filters: opt(arr(ref('Filter'), { maxItems: 10 })), sort: opt(SORT) }), obj({ items: arr(SUMMARY), nextCursor: opt(str({ maxLength: 200 })), total: int({ min: 0 }) }), { readOnlyHint: true }],
    create: ['Create a record; with dryRun, only check it', obj({ record, dryRun: opt(bool()), idempotencyKey: opt(str({ pattern: '^[A-Za-z0-9-]{8,64}$', example: 'c0ffee-2026-07-28' })) }), stored, { destructiveHint: false }],
    update: ['Apply a partial update, optionally guarded by the expected version', obj({ id, patch: partial(record), expectedVersion: opt(int({ min: 1 })) }), stored, { idempotentHint: true }],
    archive: ['Archive a record (reversible)', obj({ id, reason: str({ enum: ['duplicate', 'obsolete', 'requested', 'fraud'] }), note: opt(str({ maxLength: 500 })) }), obj({ id, archived: bool(), at: TIMESTAMP }), { destructiveHint: true }],
    search: ['Full-text search with optional date range and tags', obj({ query: str({ minLength: 1, maxLength: 500, example: 'overdue enterprise' }), range: opt(ref('DateRange')), tags: opt(TAGS), page: opt(ref('Pagination')) }), obj({ items: arr(SUMMARY), nextCursor: opt(str({ maxLength: 200 })), total: int({ min: 0 }) }), { readOnlyHint: true }],
    export: ['Export records to a file delivered by email or to a URL', obj({ format: str({ enum: ['csv', 'json', 'xlsx'] }), range: ref('DateRange'), columns: opt(arr(str({ maxLength: 64 }), { maxItems: 40 })), destination: obj({ kind: str({ enum: ['email', 'url'] }), target: str({ minLength: 3, maxLength: 500, example: 'ops@example.com' }) }) }), obj({ jobId: str({ maxLength: 64, example: 'job_2f9' }), status: str({ enum: ['queued', 'running', 'done'] }), estimatedRows: int({ min: 0 }) }), { readOnlyHint: true, openWorldHint: true }],
    summarize: ['Aggregate metrics over a date range', obj({ range: ref('DateRange'), groupBy: str({ enum: ['day', 'week', 'month'] }), metrics: arr(str({ enum: METRICS }), { minItems: 1, maxItems: 4 }) }), obj({ buckets: arr(obj({ start: DATE, values: obj(Object.fromEntries(METRICS.map((m) => [m, opt(num())]))) })) }), { readOnlyHint: true }],
    assign: ['Assign a record to someone, with a priority and a due date', obj({ id, assignee: ref('Contact'), priority: str({ enum: ['low', 'normal', 'high', 'urgent'] }), due: opt(DATE) }), obj({ id, assignee: ref('Contact'), priority: str({ enum: ['low', 'normal', 'high', 'urgent'] }), audit: ref('AuditStamp') }), { idempotentHint: true }],
    validate: ['Check a record without saving it', obj({ record, strict: opt(bool()) }), obj({ valid: bool(), problems: arr(obj({ path: str({ maxLength: 200 }), message: str({ maxLength: 500 }) }), { maxItems: 100 }) }), { readOnlyHint: true }]
  }
}

/** Every tool of the large catalog: { name, title, description, input, output, annotations }. */
function allTools () {
  const tools = []
  for (const [domain, prefix, record] of DOMAINS) {
    for (const [op, [description, input, output, annotations]] of Object.entries(operations(prefix, record))) {
      tools.push({ name: `${domain}_${op}`, title: `${op[0].toUpperCase()}${op.slice(1)} ${domain}`, description: `${description} (${domain}).`, input, output, annotations })
    }
  }
  return tools
}

/** The tool every catalog benchmark calls: a nested order with three line items, validated in and out. */
export const CALLED_TOOL = 'orders_create'

/** The hello-world tool of the published comparisons. */
const ADD = { name: 'add', title: 'Add', description: 'Adds two numbers', input: obj({ a: num(), b: num() }), output: undefined, annotations: { readOnlyHint: true } }

function allPrompts () {
  const prompts = []
  for (let i = 0; i < 20; i++) {
    const [domain] = DOMAINS[i % DOMAINS.length]
    const args = [{ name: 'id', description: `The ${domain} record to work on`, required: true }]
    if (i % 2 === 0) args.push({ name: 'tone', description: 'formal, friendly or terse', required: false })
    if (i % 3 === 0) args.push({ name: 'language', description: 'BCP 47 tag of the answer', required: false })
    prompts.push({ name: `${i < 10 ? 'explain' : 'draft_reply'}_${domain}`, description: `${i < 10 ? 'Explain' : 'Draft a reply about'} a ${domain} record for a colleague`, args })
  }
  return prompts
}

function allResources () {
  const resources = []
  for (let i = 0; i < 50; i++) {
    const [domain] = DOMAINS[i % DOMAINS.length]
    resources.push({ uri: `catalog://${domain}/guide-${i}`, name: `${domain}-guide-${i}`, description: `How the ${domain} records are kept, part ${Math.floor(i / 10) + 1}`, mimeType: 'text/markdown', text: `# ${domain}, part ${Math.floor(i / 10) + 1}\n\nHow the team keeps ${domain} records.\n` })
  }
  return resources
}

/**
 * The catalog of a given size, as plain JSON (`writeCatalogFile` saves it for servers started
 * cold): `{ tools, prompts, resources, defs }`. A tool carries its schemas twice: `input` and
 * `output` in the DSL (each SDK server builds its zod schemas from them, as its users' code would
 * at start-up) and `inputSchema` and `outputSchema` as the JSON Schemas ours is given (as its
 * users write them: literals); `template` is the structured output its handler returns
 * (`toolHandler`), the same handler body on every framework.
 */
export function catalogOf (size) {
  const tools = allTools()
  const pick = {
    large: () => ({ tools, prompts: allPrompts(), resources: allResources() }),
    demo: () => ({ tools: [tools.find((t) => t.name === CALLED_TOOL), ...['customers_get', 'tickets_search', 'reports_summarize'].map((n) => tools.find((t) => t.name === n))], prompts: allPrompts().slice(0, 1), resources: allResources().slice(0, 2) }),
    one: () => ({ tools: [tools.find((t) => t.name === CALLED_TOOL)], prompts: [], resources: [] }),
    hello: () => ({ tools: [ADD], prompts: [], resources: [] })
  }[size]
  if (pick === undefined) throw new Error(`unknown catalog size ${size} (large, demo, one, hello)`)
  const chosen = pick()
  const described = chosen.tools.map((tool) => ({
    ...tool,
    inputSchema: toJsonSchema(tool.input, DEFS),
    outputSchema: tool.output === undefined ? undefined : toJsonSchema(tool.output, DEFS),
    template: tool.output === undefined ? undefined : sample(tool.output, DEFS)
  }))
  return { ...chosen, tools: described, defs: DEFS }
}

/** Saves `catalogOf(size)` as JSON under `dir` and returns the file's path (BENCH_CATALOG_FILE). */
export function writeCatalogFile (size, dir) {
  mkdirSync(dir, { recursive: true })
  const file = join(dir, `catalog-${size}.json`)
  writeFileSync(file, JSON.stringify(catalogOf(size)))
  return file
}

/** A tool's handler: its sample output, echoing the caller's id and record where the output has them. */
export function toolHandler (tool) {
  if (tool.template === undefined) return async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] })
  const template = tool.template
  return async (args) => {
    const structuredContent = { ...template }
    if (typeof args.id === 'string' && 'id' in structuredContent) structuredContent.id = args.id
    if (args.record !== undefined && 'record' in structuredContent) structuredContent.record = args.record
    return { content: [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent }
  }
}

/** Arguments of the benchmark call of `tool`: valid, nested (three line items for orders_create). */
export function argumentsOf (tool) {
  if (tool.name === 'add') return { a: 1, b: 2 }
  const args = sample(tool.input, DEFS)
  if (tool.name === CALLED_TOOL) args.record.items = [0, 1, 2].map((i) => ({ sku: `SKU-1044${i}`, quantity: i + 1, unitPrice: { amount: 120.5 + i, currency: 'EUR' }, discount: 0.1 }))
  return args
}

/** What every successful answer to the benchmark call must contain (checked on every answer). */
export function expectedInAnswer (tool) {
  return tool.name === 'add' ? '"text":"3"' : '"sku":"SKU-10442"'
}
