// Full bet-log tiles as files in the C2SP tlog-tiles layout (`tile/<L>/<N>`, `tile/entries/<N>`), so that any
// static server, CDN or plain copy can serve them: a full tile never changes once its commit is anchored.
import { close, fstat, open, read, readFile as readFileCallback } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { BufferPool } from './buffer-pool.ts';

/**
 * The files that record up to which size everything is written (outside the `tile/` and `receipts/` trees):
 * full tiles up to the committed size, full receipt bundles up to the size whose anchors are filled.
 */
const WRITTEN = { tiles: 'written-size', receipts: 'receipts-written-size' } as const;
export type WrittenKind = keyof typeof WRITTEN;

// The callback readFile reads a small file in one go; fs/promises reads it in several steps, at about twice the CPU.
const readFile = promisify(readFileCallback);

const isMissing = (err: unknown): boolean => (err as NodeJS.ErrnoException).code === 'ENOENT';

/** A tile's bytes in a pooled buffer: `release` gives the buffer back once nothing reads the bytes any more. */
export interface TileLease {
  bytes: Buffer;
  release(): void;
}

// Buffers kept for later reads and writes, at most this many (store/buffer-pool.ts says why).
const SPARE_BUFFERS = 8;

/** The whole file at `file` into `take(size)`'s buffer (read until its end: the file never changes once written). */
function readInto(file: string, take: (size: number) => Buffer): Promise<{ buffer: Buffer; length: number }> {
  return new Promise((resolve, reject) => {
    open(file, 'r', (err, fd) => {
      if (err) return reject(err);
      const done = (error: Error | null, result?: { buffer: Buffer; length: number }) =>
        close(fd, () => (error ? reject(error) : resolve(result as { buffer: Buffer; length: number })));
      fstat(fd, (err, stat) => {
        if (err) return done(err);
        let buffer: Buffer;
        try {
          buffer = take(stat.size);
        } catch (error) {
          return done(error as Error);
        }
        const step = (at: number): void => {
          if (at === stat.size) return done(null, { buffer, length: at });
          read(fd, buffer, at, stat.size - at, at, (err, n) => {
            if (err) return done(err);
            if (n === 0) return done(new Error(`${file} ended at ${at} of its ${stat.size} bytes`));
            step(at + n);
          });
        };
        step(0);
      });
    });
  });
}

export class TileFiles {
  readonly #spare = new BufferPool(SPARE_BUFFERS);

  constructor(readonly dir: string) {}

  /** `relative` is a canonical tile path (protocol/tlog-tiles.ts), never request text. */
  #file(relative: string): string {
    return path.join(this.dir, relative);
  }

  /** The stored bytes of a tile, or null when it was not written. */
  async read(relative: string): Promise<Buffer | null> {
    try {
      return await readFile(this.#file(relative));
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  /**
   * The stored bytes of a tile in a pooled buffer, or null when it was not written. Call `release` once the bytes
   * are sent (an HTTP reply's `close`), and read them no more after.
   */
  async lease(relative: string): Promise<TileLease | null> {
    let got: { buffer: Buffer; length: number };
    try {
      got = await readInto(this.#file(relative), (size) => this.#spare.take(size));
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
    let released = false;
    return {
      bytes: got.buffer.subarray(0, got.length),
      release: () => {
        if (released) return;
        released = true;
        this.#spare.give(got.buffer);
      },
    };
  }

  /** Writes a tile whole or not at all (a reader never sees half a file): a temporary file renamed into place. */
  async write(relative: string, bytes: Uint8Array): Promise<void> {
    const file = this.#file(relative);
    await mkdir(path.dirname(file), { recursive: true });
    const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(temporary, bytes);
    await rename(temporary, file);
  }

  /** Writes, as {@link write} does, the bytes `build` puts in the buffer it asks `allocate` for: a pooled one. */
  async writeBuilt(relative: string, build: (allocate: (size: number) => Buffer) => Uint8Array): Promise<void> {
    let taken: Buffer | undefined;
    try {
      const bytes = build((size) => {
        taken = this.#spare.take(size);
        return taken;
      });
      await this.write(relative, bytes);
    } finally {
      if (taken) this.#spare.give(taken);
    }
  }

  /** The size up to which every full tile (or receipt bundle) is written; 0 when none is. */
  async writtenSize(kind: WrittenKind = 'tiles'): Promise<number> {
    const text = await this.read(WRITTEN[kind]);
    const size = text === null ? 0 : Number(text.toString('utf8'));
    return Number.isSafeInteger(size) && size > 0 ? size : 0;
  }

  async setWrittenSize(size: number, kind: WrittenKind = 'tiles'): Promise<void> {
    await this.write(WRITTEN[kind], Buffer.from(String(size)));
  }
}
