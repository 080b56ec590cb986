/** A connection that failed, with what the child server said on stderr (its own account of why). */
export class ConnectFailure extends Error {
  readonly stderrTail: string
  constructor (cause: unknown, stderrTail: string) {
    super(cause instanceof Error ? cause.message : String(cause), { cause })
    this.name = 'ConnectFailure'
    this.stderrTail = stderrTail
  }
}
