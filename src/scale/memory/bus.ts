import { randomBytes } from 'node:crypto'
import { MemoryEventStore } from './event-store.js'
import type {
  Bus, ControlMessage, DirectMessage, Envelope, FanoutMessage, ScaleEngine
} from '../ports.js'
import { MemorySessionStore } from './session-store.js'

/** Fan-out messages kept for resuming streams (oldest dropped first). */
const DEFAULT_FANOUT_HISTORY = 10_000

export interface MemoryHubOptions {
  /** Stream-0 messages kept per session; default 1000. */
  logSize?: number
  /** Fan-out messages kept; default 10,000. */
  fanoutHistory?: number
  /** Request-stream events kept per session (the shared event store); default 1000. */
  eventStoreSize?: number
}

/**
 * What several instances in one process share: the session store, the shared event store and the
 * message routes between their buses. Each {@link engine} is one instance. Messages are handed
 * to handlers in a microtask, in the order they were sent, as a network that never loses anything
 * would; a promise of the bus resolves after that hand-off (stored and delivered).
 */
export class MemoryHub {
  readonly sessions: MemorySessionStore
  readonly events: MemoryEventStore
  private readonly buses = new Map<string, MemoryBus>()
  /** Who waits to learn that an instance left. */
  private readonly deathWatch = new Map<string, Set<() => void>>()
  private readonly history: Array<Envelope<FanoutMessage>> = []
  private readonly historySize: number
  private counter = 0

  constructor (options: MemoryHubOptions = {}) {
    this.sessions = new MemorySessionStore({ logSize: options.logSize })
    this.events = new MemoryEventStore(options.eventStoreSize ?? 1000)
    this.historySize = options.fanoutHistory ?? DEFAULT_FANOUT_HISTORY
  }

  /** One instance's engine; its id is random unless given. Closing it takes the instance off the hub. */
  engine (instanceId = randomBytes(6).toString('hex')): ScaleEngine {
    if (this.buses.has(instanceId)) throw new Error(`instance ${instanceId} is already on this hub`)
    const bus = new MemoryBus(this, instanceId)
    this.buses.set(instanceId, bus)
    return { sessions: this.sessions, bus, events: this.events, close: async () => { await bus.close() } }
  }

  /** Ends the hub: every instance and every record. */
  async close (): Promise<void> {
    for (const bus of [...this.buses.values()]) await bus.close()
    await this.sessions.close()
  }

  /** @internal */
  isAlive (instance: string): boolean {
    return this.buses.has(instance)
  }

  /** @internal */
  leave (bus: MemoryBus): void {
    if (this.buses.get(bus.self) !== bus) return
    this.buses.delete(bus.self)
    const handlers = this.deathWatch.get(bus.self)
    this.deathWatch.delete(bus.self)
    for (const handler of handlers ?? []) queueMicrotask(handler)
  }

  /** @internal Calls `onDead` once `instance` is off the hub (at once if it is not on it now). */
  watchDeath (instance: string, onDead: () => void): () => void {
    // Called in a microtask: one stopped meanwhile stays silent.
    let watching = true
    const handler = (): void => { if (watching) onDead() }
    if (!this.buses.has(instance)) {
      queueMicrotask(handler)
      return () => { watching = false }
    }
    let handlers = this.deathWatch.get(instance)
    if (handlers === undefined) {
      handlers = new Set()
      this.deathWatch.set(instance, handlers)
    }
    handlers.add(handler)
    return () => {
      watching = false
      const current = this.deathWatch.get(instance)
      current?.delete(handler)
      if (current?.size === 0) this.deathWatch.delete(instance)
    }
  }

  /** @internal */
  position (): string {
    return String(++this.counter)
  }

  /** @internal */
  async direct (from: string, to: string, message: DirectMessage): Promise<void> {
    const envelope = { from, position: this.position(), message }
    const target = this.buses.get(to)
    await handOff(() => { target?.receiveDirect(envelope) })
  }

  /** @internal */
  async control (from: string, message: ControlMessage): Promise<void> {
    const envelope = { from, position: this.position(), message }
    const targets = [...this.buses.values()]
    await handOff(() => { for (const bus of targets) bus.receiveControl(envelope) })
  }

  /** @internal */
  async fanout (from: string, message: FanoutMessage): Promise<string> {
    const envelope = { from, position: this.position(), message }
    this.history.push(envelope)
    if (this.history.length > this.historySize) this.history.shift()
    const targets = [...this.buses.values()]
    await handOff(() => { for (const bus of targets) bus.receiveFanout(envelope) })
    return envelope.position
  }

  /** @internal */
  fanoutAfter (position: string): Array<Envelope<FanoutMessage>> {
    const after = Number(position)
    return this.history.filter((envelope) => Number(envelope.position) > after)
  }

  /** @internal */
  fanoutTail (): string {
    return this.history.at(-1)?.position ?? '0'
  }
}

/** Runs `deliver` in a microtask (in send order) and resolves after it. */
async function handOff (deliver: () => void): Promise<void> {
  await new Promise<void>((resolve) => {
    queueMicrotask(() => {
      try {
        deliver()
      } finally {
        resolve()
      }
    })
  })
}

/** One instance's bus on a {@link MemoryHub}. */
export class MemoryBus implements Bus {
  readonly self: string
  private readonly hub: MemoryHub
  private readonly directHandlers: Array<(envelope: Envelope<DirectMessage>) => void> = []
  private readonly controlHandlers: Array<(envelope: Envelope<ControlMessage>) => void> = []
  private readonly fanoutHandlers: Array<(envelope: Envelope<FanoutMessage>) => void> = []
  private cursor: string
  private closed = false

  constructor (hub: MemoryHub, self: string) {
    this.hub = hub
    this.self = self
    this.cursor = hub.fanoutTail()
  }

  async send (to: string, message: DirectMessage): Promise<void> {
    if (this.closed) return
    await this.hub.direct(this.self, to, message)
  }

  async control (message: ControlMessage): Promise<void> {
    if (this.closed) return
    await this.hub.control(this.self, message)
  }

  async fanout (message: FanoutMessage): Promise<string> {
    return await this.hub.fanout(this.self, message)
  }

  async deliver0 (session: string, json: string): Promise<string | undefined> {
    const appended = this.hub.sessions.appendLog0(session, json)
    if (appended === undefined) return undefined
    await this.hub.direct(this.self, appended.gateway, { type: 'event', session, position: appended.position, json })
    return appended.position
  }

  async log0After (session: string, position: string): Promise<Array<{ position: string, json: string }>> {
    return this.hub.sessions.log0After(session, position)
  }

  alive (instance: string): boolean {
    return this.hub.isAlive(instance)
  }

  async checkAlive (instance: string): Promise<boolean> {
    return this.hub.isAlive(instance)
  }

  watchDeath (instance: string, onDead: () => void): () => void {
    return this.hub.watchDeath(instance, onDead)
  }

  onDirect (handler: (envelope: Envelope<DirectMessage>) => void): void {
    this.directHandlers.push(handler)
  }

  onControl (handler: (envelope: Envelope<ControlMessage>) => void): void {
    this.controlHandlers.push(handler)
  }

  onFanout (handler: (envelope: Envelope<FanoutMessage>) => void): void {
    this.fanoutHandlers.push(handler)
  }

  async fanoutAfter (position: string): Promise<Array<Envelope<FanoutMessage>>> {
    return this.hub.fanoutAfter(position)
  }

  fanoutCursor (): string {
    return this.cursor
  }

  async close (): Promise<void> {
    this.closed = true
    this.hub.leave(this)
  }

  /** @internal */
  receiveDirect (envelope: Envelope<DirectMessage>): void {
    if (!this.closed) for (const handler of this.directHandlers) handler(envelope)
  }

  /** @internal */
  receiveControl (envelope: Envelope<ControlMessage>): void {
    if (!this.closed) for (const handler of this.controlHandlers) handler(envelope)
  }

  /** @internal */
  receiveFanout (envelope: Envelope<FanoutMessage>): void {
    if (this.closed) return
    this.cursor = envelope.position
    for (const handler of this.fanoutHandlers) handler(envelope)
  }
}
