/** Seconds a client is asked to wait (`Retry-After`) when the server, or its share of it, is full or unavailable. */
export const RETRY_AFTER_SECONDS = 5
