/** The known option closest to an unknown one, if it is close enough to be a typo. */
export function closest (key: string, known: string[]): string | undefined {
  const limit = Math.min(2, Math.floor(key.length / 2))
  let best: string | undefined
  let bestDistance = Infinity
  for (const candidate of known) {
    const d = distance(key.toLowerCase(), candidate.toLowerCase())
    if (d <= limit && d < bestDistance) [best, bestDistance] = [candidate, d]
  }
  return best
}

/** Edit distance counting an adjacent swap as one edit ("prot" -> "port"). */
function distance (a: string, b: string): number {
  const width = b.length + 1
  const d: number[] = []
  const at = (i: number, j: number): number => d[i * width + j] ?? 0
  for (let i = 0; i <= a.length; i++) {
    for (let j = 0; j <= b.length; j++) {
      let v = i + j
      if (i > 0 && j > 0) {
        v = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + (a[i - 1] === b[j - 1] ? 0 : 1))
        if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, at(i - 2, j - 2) + 1)
      }
      d[i * width + j] = v
    }
  }
  return at(a.length, b.length)
}
