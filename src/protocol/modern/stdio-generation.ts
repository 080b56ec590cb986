import type { ClassifiedMessage } from '../../jsonrpc/messages.js'
import { hasModernClaim, type ProtocolGeneration } from './meta.js'

/**
 * The protocol generation of a stdio process (`basic/transports/stdio.mdx`, Backward
 * Compatibility; `basic/versioning.mdx`): a dual-era server "selects its
 * behavior from how the client opens", and on stdio the choice holds for the
 * life of the process.
 *
 * - The first claim-carrying request pins the process to 2026-07-28, except
 *   `server/discover`, the probe of dual-era clients, which pins nothing.
 * - Any other first message (`initialize`, a claim-less request, a
 *   notification) pins it to the legacy revisions, as today.
 * - Once pinned modern, every request goes through the modern ladder (a later
 *   `initialize` is refused with -32022); once pinned legacy, everything is
 *   served as before, except a claim-carrying `server/discover`, which is
 *   still answered (it reads nothing and changes nothing).
 * - With one generation served there is nothing to choose.
 */
export class StdioGeneration {
  private pinned: ProtocolGeneration | undefined
  private readonly generations: ReadonlySet<ProtocolGeneration>

  constructor (generations: ReadonlySet<ProtocolGeneration>) {
    this.generations = generations
    if (!generations.has('modern')) this.pinned = 'legacy'
    else if (!generations.has('legacy')) this.pinned = 'modern'
  }

  /** The generation the process is pinned to, if any yet. */
  get generation (): ProtocolGeneration | undefined {
    return this.pinned
  }

  /** Which leg serves this message; pins the process when this message decides it. */
  route (classified: ClassifiedMessage): ProtocolGeneration {
    const claim = classified.kind === 'request' && hasModernClaim(classified.message.params)
    if (this.pinned === undefined) {
      if (!claim) {
        this.pinned = 'legacy'
        return 'legacy'
      }
      if (classified.kind === 'request' && classified.message.method === 'server/discover') return 'modern'
      this.pinned = 'modern'
      return 'modern'
    }
    if (this.pinned === 'legacy' && claim && this.generations.has('modern') && classified.kind === 'request' && classified.message.method === 'server/discover') return 'modern'
    return this.pinned
  }
}
