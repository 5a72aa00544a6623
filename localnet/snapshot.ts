// Atomic snapshot file: LiteSVM state plus chain bookkeeping, written debounced and on close.
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ChainState } from './chain.ts';
import type { Logger } from './history.ts';

const MAGIC = Buffer.from('LNSNAP01', 'latin1');
export const SNAPSHOT_FILE = 'snapshot.bin';
export const HISTORY_FILE = 'transactions.jsonl';

export interface SnapshotMeta {
  version: 1;
  /** How many history records are already reflected in the saved LiteSVM state; later ones get replayed. */
  appliedCount: number;
  chain: ChainState;
  savedAt: string;
}

export async function readSnapshot(dir: string): Promise<{ meta: SnapshotMeta; svm: Uint8Array } | null> {
  let buf: Buffer;
  try {
    buf = await readFile(join(dir, SNAPSHOT_FILE));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  if (buf.length < 12 || !buf.subarray(0, 8).equals(MAGIC)) throw new Error(`localnet: ${SNAPSHOT_FILE} is not a localnet snapshot`);
  const jsonLen = buf.readUInt32LE(8);
  const meta = JSON.parse(buf.toString('utf8', 12, 12 + jsonLen)) as SnapshotMeta;
  if (meta.version !== 1) throw new Error(`localnet: unsupported snapshot version ${String(meta.version)}`);
  return { meta, svm: new Uint8Array(buf.buffer, buf.byteOffset + 12 + jsonLen, buf.length - 12 - jsonLen) };
}

export async function writeSnapshot(dir: string, meta: SnapshotMeta, svm: Uint8Array): Promise<void> {
  const json = Buffer.from(JSON.stringify(meta), 'utf8');
  const len = Buffer.alloc(4);
  len.writeUInt32LE(json.length, 0);
  const final = join(dir, SNAPSHOT_FILE);
  const tmp = `${final}.tmp`;
  await writeFile(tmp, Buffer.concat([MAGIC, len, json, svm]));
  await rename(tmp, final);
}

/**
 * Debounces change notifications: a snapshot is written once changes pause for `intervalMs`, or at the latest
 * `maxWaitMs` after the first unsaved change. The transaction log already makes every landed transaction durable
 * (it is replayed on start), so snapshots only bound replay time; writing the whole LiteSVM state (~1.4 MB, mostly
 * program binaries) on every pause of a busy chain would be needless disk churn. Never runs two writes at once.
 */
export class Snapshotter {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private dirtySince: number | null = null;

  constructor(
    private readonly intervalMs: number,
    private readonly maxWaitMs: number,
    private readonly save: () => Promise<void>,
    private readonly log: Logger,
  ) {}

  changed(): void {
    const now = Date.now();
    this.dirtySince ??= now;
    if (this.running) return;
    if (this.timer) clearTimeout(this.timer);
    const wait = Math.max(0, Math.min(this.intervalMs, this.dirtySince + this.maxWaitMs - now));
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.run();
    }, wait);
  }

  private async run(): Promise<void> {
    if (this.running) return this.running;
    this.dirtySince = null;
    this.running = this.save().catch((e: unknown) => {
      this.log.error({ err: e }, 'localnet: snapshot failed');
    });
    await this.running;
    this.running = null;
    if (this.dirtySince !== null) this.changed();
  }

  async flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    while (this.running) await this.running;
    await this.run();
  }
}
