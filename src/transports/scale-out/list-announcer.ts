import type { ListKind, Registry } from '../../protocol/registry.js'

const LISTS: readonly ListKind[] = ['tools', 'resources', 'prompts']

/**
 * list_changed across instances. The instances of a deployment run the same code, so a change to
 * the registry (a tool added at run time) is usually made on every one of them: announcing it from
 * each would tell a client N times. Each change goes to every instance with the list's digest
 * (`Registry.digest`), and an instance announces a (list, digest) to what it holds the first time
 * it sees it, whoever sent it; its own later copy of the same change is then not news.
 *
 * The registrations an app makes while it starts are not changes (nobody is connected yet, and
 * an instance joining a running deployment must not announce its tools one by one to clients of
 * the others): announcing starts once the app is ready, from the registry as it then is.
 */
export class ListChangeAnnouncer {
  private readonly announced = new Map<ListKind, string>()
  private live = false
  private readonly registry: Registry

  constructor (registry: Registry) {
    this.registry = registry
  }

  /** The app is ready: from now on a change is published. */
  start (): void {
    for (const list of LISTS) this.announced.set(list, this.registry.digest(list))
    this.live = true
  }

  /** Whether a change made here is to be published (the app finished starting). */
  get publishing (): boolean {
    return this.live
  }

  /** A change reached this instance (its own included): true the first time its (list, digest) is seen. */
  isNews (list: ListKind, digest: string): boolean {
    if (this.announced.get(list) === digest) return false
    this.announced.set(list, digest)
    return true
  }
}
