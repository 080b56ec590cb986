/** One invalid option: its dotted path (`transport.options.port`) and what is wrong. */
export interface OptionsProblem {
  readonly path: string
  readonly message: string
}

/** How a rule reports a problem. */
export type Add = (path: string, message: string) => void

/** `join('a', 'b')` = `a.b`, `join('a', 0)` = `a[0]`, `join('', 'b')` = `b`. */
export function join (base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}[${key}]`
  return base === '' ? key : `${base}.${key}`
}

/** Rule problems replace the schema problem at their path, in its place; the others are appended. */
export function merge (schemaProblems: OptionsProblem[], ruleProblems: OptionsProblem[]): OptionsProblem[] {
  const rulePaths = new Set(ruleProblems.map((r) => r.path))
  const placed = new Set<string>()
  const out: OptionsProblem[] = []
  for (const problem of schemaProblems) {
    if (!rulePaths.has(problem.path)) {
      out.push(problem)
    } else if (!placed.has(problem.path)) {
      out.push(...ruleProblems.filter((r) => r.path === problem.path))
      placed.add(problem.path)
    }
  }
  return [...out, ...ruleProblems.filter((r) => !placed.has(r.path))]
}
