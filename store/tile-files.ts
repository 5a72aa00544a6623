// Full bet-log tiles as files in the C2SP tlog-tiles layout (`tile/<L>/<N>`, `tile/entries/<N>`), so that any
// static server, CDN or plain copy can serve them: a full tile never changes once its commit is anchored.
import { readFile as readFileCallback } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

/** The file that records the committed size whose full tiles are all written (outside the `tile/` tree). */
const WRITTEN = 'written-size';

// The callback readFile reads a small file in one go; fs/promises reads it in several steps, at about twice the CPU.
const readFile = promisify(readFileCallback);

const isMissing = (err: unknown): boolean => (err as NodeJS.ErrnoException).code === 'ENOENT';

export class TileFiles {
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

  /** Writes a tile whole or not at all (a reader never sees half a file): a temporary file renamed into place. */
  async write(relative: string, bytes: Uint8Array): Promise<void> {
    const file = this.#file(relative);
    await mkdir(path.dirname(file), { recursive: true });
    const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(temporary, bytes);
    await rename(temporary, file);
  }

  /** The committed size up to which every full tile is written; 0 when none is. */
  async writtenSize(): Promise<number> {
    const text = await this.read(WRITTEN);
    const size = text === null ? 0 : Number(text.toString('utf8'));
    return Number.isSafeInteger(size) && size > 0 ? size : 0;
  }

  async setWrittenSize(size: number): Promise<void> {
    await this.write(WRITTEN, Buffer.from(String(size)));
  }
}
