/**
 * An instance id (scale-out): letters, digits and `-`, 1 to 64 of them. Event ids
 * (`{instance}.{k}_{n}`) and server request ids (`s.{instance}.{n}`) embed it, so it holds no `.`
 * or `_`. A regex source without anchors, for building those grammars and the option's pattern.
 */
export const INSTANCE_ID_SOURCE = '[A-Za-z0-9-]{1,64}'

/** Session ids are UUIDs; anything much longer is not worth a map lookup. */
export const MAX_SESSION_ID_LENGTH = 128
