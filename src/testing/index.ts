// `fastify-mcp-server/testing`: a client for tests that talks to a server in this process, on both
// protocol generations. A subpath of its own: the main entry never loads it.
export { createTestClient } from './create.js'
export type { TestClientOptions } from './create.js'
export type { TestClient, ListOptions, WaitForTaskOptions } from './client.js'
export { TransportError } from './transport-error.js'
export type {
  TestProtocolVersion, ClientHandlers, RequestOptions,
  Tool, Resource, ResourceTemplate, Prompt, Page,
  ListToolsResult, ListResourcesResult, ListResourceTemplatesResult, ListPromptsResult,
  CallToolResult, GetPromptResult, ReadResourceResult, ReadResourceContents, CompletionReference, CompleteResult,
  DiscoverResult, ProgressEvent, LogEvent, Notification,
  ElicitRequest, ElicitResult, SampleRequest, SampleResult, ListRootsResult,
  Task, DetailedTask, TaskCall, ListenFilter, Subscription
} from './types.js'
