// The official SDK's Streamable HTTP transport as its jsonResponseStreamableHttp.js example sets it
// up (sdk-streamable-app.js), one McpServer with the `add` tool per session.
import { serveSdkStreamable } from './sdk-streamable-app.js'
import { createSdkServer } from './sdk-server.js'

serveSdkStreamable(createSdkServer)
