import type { ProtocolServer } from '../../protocol/protocol-server.js'
import type { ScaleEngine } from '../../scale/ports.js'

/**
 * What links an instance's tasks and telemetry to its scale-out engine besides sessions: a
 * `tasks/cancel` taken here for a task running on another instance reaches that instance over
 * the bus and stops its handler at once (not at its next store write), and each write the engine
 * refuses past a bound is counted (`fastify_mcp.server.limit.refusals`).
 */
export function linkEngine (engine: ScaleEngine, core: ProtocolServer): void {
  core.tasks.setCancelRelay(async (taskId) => { await engine.bus.control({ type: 'task-cancel', taskId }, { forRequest: true }) })
  engine.bus.onControl(({ message }) => {
    if (message.type === 'task-cancel') core.tasks.cancelledElsewhere(message.taskId)
  })
  engine.onLimitRefusal?.((limit) => { core.telemetry.limitRefusal(limit) })
}
