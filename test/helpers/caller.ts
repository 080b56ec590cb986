import { principalClient, type Caller } from '../../src/protocol/caller.js'
import type { Principal } from '../../src/protocol/principal.js'

/**
 * A caller for tests that hand messages to the dispatcher without a transport: `principal` (or
 * none), counted as its identity's client, or as `client` (default `test`) without one.
 */
export function testCaller (principal?: Principal, client = 'test', bytes = 0): Caller {
  return { principal, client: principal === undefined ? client : principalClient(principal), validUntil: principal?.expiresAt, bytes, transport: 'stdio', peer: undefined }
}
