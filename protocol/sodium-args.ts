// Arguments for sodium-native's checks, for the two native backends (the service's, protocol/crypto-node.ts, and the
// CLI's, verifier/crypto.ts); never imported by the portable core. sodium-native hands libsodium each array's
// `.buffer`. V8 keeps a typed array of 64 bytes or fewer (a decoded signature, a 32-byte hash) inside its heap, and
// its first `.buffer` moves it out to a new backing store: a malloc, a copy and a sweep later, on every check. Such
// arrays are copied into these instead. A check is synchronous, so one pair serves every call.
const signatureBytes = Buffer.allocUnsafeSlow(64);
const shortMessageBytes = Buffer.allocUnsafeSlow(64);

/** A 64-byte signature, off V8's heap; valid until the next call. */
export function offHeapSignature(signature: Uint8Array): Buffer {
  signatureBytes.set(signature);
  return signatureBytes;
}

/** The message's own bytes when it is longer than 64 bytes (so off V8's heap), else a copy off it; valid until the next call. */
export function offHeapMessage(message: Uint8Array): Buffer {
  if (message.length > shortMessageBytes.length)
    return Buffer.isBuffer(message) ? message : Buffer.from(message.buffer, message.byteOffset, message.byteLength);
  shortMessageBytes.set(message);
  return shortMessageBytes.subarray(0, message.length);
}
