// Redis Cluster's key placement (the Cluster specification, "Keys distribution model"): a key's
// slot is CRC16 (XMODEM) of its hash tag, or of the whole key when it has none, modulo 16384. The
// key layout (keys.ts) uses it to pick shard tags spread over the slot space.

/** Slots of a Redis Cluster. */
export const SLOTS = 16384

const TABLE = (() => {
  const table = new Uint16Array(256)
  for (let byte = 0; byte < 256; byte++) {
    let crc = byte << 8
    for (let bit = 0; bit < 8; bit++) crc = (crc & 0x8000) !== 0 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff
    table[byte] = crc
  }
  return table
})()

function crc16 (bytes: Uint8Array): number {
  let crc = 0
  for (const byte of bytes) crc = ((crc << 8) & 0xffff) ^ (TABLE[((crc >> 8) ^ byte) & 0xff] as number)
  return crc
}

/** The slot of `key`: of its hash tag (the first `{...}` with something inside), else of the whole key. */
export function slotOf (key: string): number {
  let hashed = key
  const open = key.indexOf('{')
  if (open !== -1) {
    const close = key.indexOf('}', open + 1)
    if (close > open + 1) hashed = key.slice(open + 1, close)
  }
  return crc16(Buffer.from(hashed, 'utf8')) % SLOTS
}
