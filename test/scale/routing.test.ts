import t from 'tap'
import { memoryRig } from '../helpers/scale-cluster.js'
import { routingSuite } from '../helpers/scale-routing-suite.js'

// Issue 12, must-show 7: the routing of every message kind across 3 instances in one process, on
// the in-process engine (MemoryHub). The same suite runs on Redis in scale-redis.test.ts.
routingSuite(t, async () => await memoryRig())
