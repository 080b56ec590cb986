/**
 * A shallow copy of an object that its receiver goes on to complete with more properties (a tool
 * result given `content`, a 2026-07-28 result given `resultType` and `_meta`).
 *
 * Not `{ ...value }`: V8 (Node 20) gives a spread copy a map outside the transition tree, so every
 * property added to it afterwards copies the map at run time, about 0.5 µs each; completing a
 * `tools/call` result that way cost 1.5 µs against 0.1 µs for this copy (benchmarks, issue 25).
 * `Object.assign` assigns, and assigning an own `__proto__` key (JSON.parse makes them) would set
 * the copy's prototype instead of copying the key, so such a value is spread as before.
 */
export function shallowCopy (value: object): Record<string, unknown> {
  if (Object.hasOwn(value, '__proto__')) return { ...value }
  return Object.assign<Record<string, unknown>, object>({}, value)
}
