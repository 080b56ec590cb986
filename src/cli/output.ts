import type { Writable } from 'node:stream'
import { styleText } from 'node:util'

type Format = Parameters<typeof styleText>[0]

/** Where a command writes: results on stdout, everything for the human (progress, logs, errors) on stderr. */
export interface Output {
  /** A line of the result (stdout). */
  out: (line: string) => void
  /** A line for the human (stderr). */
  err: (line: string) => void
  /** `text` styled for stdout, or as is when stdout is not a terminal. */
  styleOut: (format: Format, text: string) => string
  /** `text` styled for stderr, or as is when stderr is not a terminal. */
  styleErr: (format: Format, text: string) => string
}

/**
 * Colours only on a terminal (a pipe or a file gets plain text), and never under `NO_COLOR`
 * (no-color.org); `FORCE_COLOR` (other than `0`) forces them. `styleText` is Node's own (20.12+).
 */
export function createOutput (stdout: Writable & { isTTY?: boolean }, stderr: Writable & { isTTY?: boolean }, env: NodeJS.ProcessEnv): Output {
  const colours = (stream: { isTTY?: boolean }): boolean => {
    if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false
    if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0'
    return stream.isTTY === true
  }
  const styler = (on: boolean) => (format: Format, text: string): string => on ? styleText(format, text, { validateStream: false }) : text
  return {
    out: (line) => { stdout.write(line + '\n') },
    err: (line) => { stderr.write(line + '\n') },
    styleOut: styler(colours(stdout)),
    styleErr: styler(colours(stderr))
  }
}
