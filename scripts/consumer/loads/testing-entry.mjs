// The other side of the check: the testing entry, when a test imports it, is seen loading.
import { createTestClient } from 'fastify-mcp-server/testing'

if (typeof createTestClient !== 'function') throw new Error('no createTestClient')
