// Full bet-log tiles as files in the C2SP tlog-tiles layout (`tile/<L>/<N>`, `tile/entries/<N>`), so that any
// static server, CDN or plain copy can serve them: a full tile never changes once its commit is anchored.
import { readFile as readFileCallback } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

/**
 * The files that record up to which size everything is written (outside the `tile/` and `receipts/` trees):
 * full tiles up to the committed size, full receipt bundles up to the size whose anchors are filled.
 */
const WRITTEN = { tiles: 'written-size', receipts: 'receipts-written-size' } as const;
export type WrittenKind = keyof typeof WRITTEN;

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
