// Outcome randomness: HMAC-SHA256(s_i, clientSeedRaw ‖ betPayloadHash ‖ uint32be(counter)) words, rejection-sampled.
import { hmacSha256 } from './crypto.ts';
import { concatBytes, fromHex, u32be } from './encoding.ts';

const TWO_POW_32 = 2 ** 32;

/**
 * A stream of big-endian uint32 words drawn from the bet's HMAC blocks, counter 0, 1, ….
 * @throws {TypeError} when an input is not 32 bytes of hex
 */
export class OutcomeStream {
  readonly #key: Uint8Array;
  readonly #prefix: Uint8Array;
  #counter = 0;
  #block: DataView | null = null;
  #word = 8;

  constructor(rngValueHex: string, clientSeedRawHex: string, betPayloadHashHex: string) {
    this.#key = fromHex(rngValueHex, 32);
    this.#prefix = concatBytes(fromHex(clientSeedRawHex, 32), fromHex(betPayloadHashHex, 32));
  }

  nextWord(): number {
    if (this.#word === 8 || !this.#block) {
      const bytes = hmacSha256(this.#key, concatBytes(this.#prefix, u32be(this.#counter++)));
      this.#block = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      this.#word = 0;
    }
    return this.#block.getUint32(4 * this.#word++);
  }

  /**
   * A uniform integer in [0, n) without modulo bias: words ≥ floor(2^32 / n) * n are rejected.
   * @throws {RangeError} when n is not an integer in [1, 2^32]
   * @example new OutcomeStream(s, seed, hash).drawInt(10_000)
   */
  drawInt(n: number): number {
    if (!Number.isSafeInteger(n) || n < 1 || n > TWO_POW_32) throw new RangeError('bad draw range');
    const limit = Math.floor(TWO_POW_32 / n) * n;
    for (;;) {
      const word = this.nextWord();
      if (word < limit) return word % n;
    }
  }
}
