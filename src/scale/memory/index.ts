export { MemoryBus, MemoryHub, type MemoryHubOptions } from './bus.js'
export { MemorySessionStore } from './session-store.js'
