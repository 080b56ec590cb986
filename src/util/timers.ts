/** Longest delay Node's timers honour, in ms (2^31-1, about 24.8 days); a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1
