// Large buffers kept for reuse. A fresh buffer of a megabyte or more comes from the system and costs a page fault per
// 4 kB page it is written in (about 11 µs each on the 2-core virtual machines measured: 2.7 ms a megabyte); a buffer
// written before has its pages already. Kept buffers also leave V8's external memory flat: a fresh buffer per
// megabyte bundle served set off full mark-compacts of an API process's heap about once a second under an audit.

// Sizes are rounded up to a power of two (at least this), so batches of a similar size share buffers.
const MIN_BUFFER = 16 * 1024;

export class BufferPool {
  readonly #kept: Buffer[] = [];

  /**
   * @param maxBuffers how many buffers are kept at most
   * @param maxBytes a larger buffer is not kept (a backfill's rare batch)
   */
  constructor(
    readonly maxBuffers: number,
    readonly maxBytes = Number.POSITIVE_INFINITY,
  ) {}

  /** The smallest kept buffer of at least `size` bytes, taken out of the pool, or a new one. */
  take(size: number): Buffer {
    let best = -1;
    for (let i = 0; i < this.#kept.length; i++) {
      const b = this.#kept[i] as Buffer;
      if (b.length >= size && (best < 0 || b.length < (this.#kept[best] as Buffer).length)) best = i;
    }
    if (best >= 0) return this.#kept.splice(best, 1)[0] as Buffer;
    return Buffer.allocUnsafeSlow(Math.max(MIN_BUFFER, 2 ** Math.ceil(Math.log2(Math.max(size, 1)))));
  }

  /** Gives back a buffer {@link take} returned, once nothing reads or writes it any more. */
  give(buffer: Buffer): void {
    if (buffer.length > this.maxBytes) return;
    if (this.#kept.length < this.maxBuffers) {
      this.#kept.push(buffer);
      return;
    }
    // Full: the smallest kept buffer makes way for a larger one, so the pool ends up holding the sizes batches need.
    let smallest = 0;
    for (let i = 1; i < this.#kept.length; i++) if ((this.#kept[i] as Buffer).length < (this.#kept[smallest] as Buffer).length) smallest = i;
    if ((this.#kept[smallest] as Buffer).length < buffer.length) this.#kept[smallest] = buffer;
  }

  /** How many buffers are kept now. */
  get size(): number {
    return this.#kept.length;
  }
}
