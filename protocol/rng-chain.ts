// Operator RNG hash chain: s_{i-1} = sha256(s_i); the head s_0 is committed on-chain, s_i is bet i's randomness.
import { sha256, sha256Hex } from './crypto.ts';
import { bytesEqual, fromHex, isHex } from './encoding.ts';
import { toHex32, type Hex32 } from './hex32.ts';
import { finish, sliceCounter } from './slices.ts';

export const RNG_VALUE_BYTES = 32;

export interface RngChainOptions {
  /** The secret end of the chain, s_N. */
  secret: Uint8Array;
  /** N: indices 1..N can be used. */
  length: number;
  /**
   * Distance between the values kept in memory.
   * @defaultValue 1024
   */
  checkpointInterval?: number;
  /**
   * Previously computed checkpoints (s_0, s_interval, s_2·interval, …), so a large chain loads without
   * hashing all of it; each is checked against the next one when its segment is first used.
   */
  checkpoints?: readonly Uint8Array[];
}

/**
 * Hashes a chain from its secret s_N down to its head s_0 and returns the checkpoints s_0, s_interval, s_2·interval, …
 * that {@link RngChain} takes. It pauses (yields) after every `sliceHashes` hashes, so that a caller creating a long
 * chain can let other work run between slices (a chain of 100M indices is about 100 s of hashing).
 * @throws {RangeError} on a bad secret, length, interval or slice
 */
export function* chainCheckpoints(secret: Uint8Array, length: number, interval: number, sliceHashes = Number.POSITIVE_INFINITY): Generator<void, Uint8Array[]> {
  if (secret.length !== RNG_VALUE_BYTES) throw new RangeError('secret must be 32 bytes');
  if (!Number.isSafeInteger(length) || length < 1) throw new RangeError('length must be a positive integer');
  if (!Number.isSafeInteger(interval) || interval < 1) throw new RangeError('bad checkpoint interval');
  const due = sliceCounter(sliceHashes);
  const checkpoints: Uint8Array[] = new Array(Math.floor(length / interval) + 1);
  let value = secret;
  for (let i = length; i >= 0; i--) {
    if (i % interval === 0) checkpoints[i / interval] = value;
    if (i === 0) break;
    value = sha256(value);
    if (due()) yield;
  }
  return checkpoints;
}

/**
 * A chain whose values are served from sparse checkpoints, with one recomputed segment cached,
 * so sequential indices cost one hash each on average.
 * @example new RngChain({ secret, length: 1000 }).value(1)
 */
export class RngChain {
  readonly length: number;
  readonly head: Uint8Array;
  readonly headHex: Hex32;
  readonly #interval: number;
  // #checkpoints[k] = s_{k * interval}, plus s_N at the end.
  readonly #checkpoints: Uint8Array[] = [];
  readonly #secret: Uint8Array;
  #segmentStart = -1;
  #segment: Uint8Array[] = [];

  /** @throws {RangeError} on a bad secret, length or interval */
  constructor(options: RngChainOptions) {
    const { secret, length } = options;
    const interval = options.checkpointInterval ?? 1024;
    if (secret.length !== RNG_VALUE_BYTES) throw new RangeError('secret must be 32 bytes');
    if (!Number.isSafeInteger(length) || length < 1) throw new RangeError('length must be a positive integer');
    if (!Number.isSafeInteger(interval) || interval < 1) throw new RangeError('bad checkpoint interval');
    this.length = length;
    this.#interval = interval;
    const slots = Math.floor(length / interval);
    let checkpoints: Uint8Array[];
    if (options.checkpoints) {
      if (options.checkpoints.length !== slots + 1 || options.checkpoints.some((c) => c.length !== RNG_VALUE_BYTES)) {
        throw new RangeError('checkpoints do not fit the chain length and interval');
      }
      checkpoints = [...options.checkpoints];
    } else {
      checkpoints = finish(chainCheckpoints(secret, length, interval));
    }
    this.#checkpoints = checkpoints;
    this.head = checkpoints[0] as Uint8Array;
    this.headHex = toHex32(this.head);
    this.#secret = secret;
  }

  /**
   * s_i for 0 ≤ i ≤ N.
   * @throws {RangeError} when i is outside the chain
   */
  value(i: number): Uint8Array {
    if (!Number.isSafeInteger(i) || i < 0 || i > this.length) throw new RangeError('rng index outside the chain');
    const start = Math.floor(i / this.#interval) * this.#interval;
    if (start !== this.#segmentStart) this.#loadSegment(start);
    return this.#segment[i - start] as Uint8Array;
  }

  /** The checkpoints, to store beside the secret. */
  checkpoints(): readonly Uint8Array[] {
    return this.#checkpoints;
  }

  valueHex(i: number): Hex32 {
    return toHex32(this.value(i));
  }

  #loadSegment(start: number): void {
    const end = Math.min(start + this.#interval, this.length);
    const top = end === this.length ? this.#secret : (this.#checkpoints[end / this.#interval] as Uint8Array);
    const segment: Uint8Array[] = new Array(end - start + 1);
    segment[end - start] = top;
    for (let k = end - start; k > 0; k--) segment[k - 1] = sha256(segment[k] as Uint8Array);
    if (!bytesEqual(segment[0] as Uint8Array, this.#checkpoints[start / this.#interval] as Uint8Array)) {
      throw new Error(`rng chain checkpoint ${start} does not link to the next one`);
    }
    this.#segment = segment;
    this.#segmentStart = start;
  }
}

/**
 * Checks that `valueI` is s_i of the chain in which `valueJ` is s_j, for j ≤ i: sha256^(i-j)(s_i) == s_j.
 * @returns false on any malformed input, including j > i or a distance above `maxSteps`
 * @example verifyRngLink(chain.valueHex(5), 5, chain.headHex, 0) // true
 */
export function verifyRngLink(valueI: string, i: number, valueJ: string, j: number, maxSteps = 50_000_000): boolean {
  if (!isHex(valueI, RNG_VALUE_BYTES) || !isHex(valueJ, RNG_VALUE_BYTES)) return false;
  if (!Number.isSafeInteger(i) || !Number.isSafeInteger(j) || j < 0 || j > i || i - j > maxSteps) return false;
  if (i === j) return valueI === valueJ;
  let value = fromHex(valueI);
  for (let k = i; k > j + 1; k--) value = sha256(value);
  // Both are lowercase hex of 32 bytes: equal text is equal bytes.
  return sha256Hex(value) === valueJ;
}
