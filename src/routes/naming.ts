import type { ToolAnnotations } from '../protocol/definitions.js'

/** The most a tool name may hold (the spec's grammar: 1-128 of `A-Z a-z 0-9 _ . -`). */
const MAX_NAME = 128

/**
 * A name within the tool-name grammar from any text: every run of other characters becomes one
 * `_`, and `_` at either end goes. `GET /users/:id` -> `get_users_id`; an OpenAPI
 * `operationId` such as `getUser` stays as it is.
 */
export function toToolName (text: string): string {
  const name = text.replace(/[^A-Za-z0-9_.-]+/g, '_').replace(/^_+|_+$/g, '').slice(0, MAX_NAME)
  return name === '' ? 'route' : name
}

/**
 * `<method>_<path words>`: `get_users_id` for `GET /users/:id`. Slashes, colons and underscores
 * alike separate words here, so no run of them leaves `__` behind.
 */
export function methodPathName (method: string, pathWords: string): string {
  return toToolName(`${method.toLowerCase()}_${pathWords}`.replace(/[^A-Za-z0-9.-]+/g, '_'))
}

/**
 * What the method promises (RFC 9110 §9.2): GET is safe, so read-only; PUT and DELETE are
 * idempotent; DELETE destroys. POST and PATCH promise nothing, so the spec's defaults stand (not
 * read-only, possibly destructive, not idempotent). `config.mcp.annotations` overrides any of them.
 */
export function annotationsOf (method: string, overrides: ToolAnnotations | undefined): ToolAnnotations | undefined {
  const derived: ToolAnnotations = method === 'GET'
    ? { readOnlyHint: true }
    : method === 'PUT'
      ? { idempotentHint: true }
      : method === 'DELETE' ? { destructiveHint: true, idempotentHint: true } : {}
  const annotations = { ...derived, ...overrides }
  return Object.keys(annotations).length === 0 ? undefined : annotations
}
