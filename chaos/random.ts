// Seeded randomness for the fault suite: one printed seed replays the same schedule, choices and fuzz inputs.
import { createHmac, randomBytes } from 'node:crypto';

/** A deterministic stream of numbers drawn from HMAC-SHA256(seed, label ‖ counter). */
export class SeededRandom {
  #block = Buffer.alloc(0);
  #offset = 0;
  #counter = 0;

  constructor(
    readonly seed: string,
    readonly label = 'root',
  ) {}

  /** A fresh random seed to print and replay with `--seed`. */
  static newSeed(): string {
    return randomBytes(8).toString('hex');
  }

  /** An independent stream for one part of the run, so adding draws in one part leaves the others unchanged. */
  fork(label: string): SeededRandom {
    return new SeededRandom(this.seed, `${this.label}/${label}`);
  }

  /** A uniform 32-bit unsigned integer. */
  uint32(): number {
    if (this.#offset + 4 > this.#block.length) {
      this.#block = createHmac('sha256', this.seed)
        .update(`${this.label}:${this.#counter++}`)
        .digest();
      this.#offset = 0;
    }
    const value = this.#block.readUInt32BE(this.#offset);
    this.#offset += 4;
    return value;
  }

  /** A float in [0, 1). */
  next(): number {
    return this.uint32() / 2 ** 32;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[this.int(0, items.length - 1)]!;
  }

  /** A 31-bit integer for libraries that take their own seed (fast-check). */
  intSeed(): number {
    return this.uint32() >>> 1;
  }
}
