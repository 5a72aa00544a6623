// Embedded Solana dev chain: LiteSVM behind a JSON-RPC subset on HTTP, persisted under a data directory.
import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Chain } from './chain.ts';
import { History, type Logger } from './history.ts';
import { lockDataDir } from './lock.ts';
import { Rpc } from './rpc.ts';
import { createRpcServer } from './server.ts';
import { HISTORY_FILE, Snapshotter, readSnapshot, writeSnapshot, type SnapshotMeta } from './snapshot.ts';

export interface LocalnetOptions {
  /** TCP port; 0 picks an ephemeral one. */
  port: number;
  /** @defaultValue '127.0.0.1' */
  host?: string;
  /** Created if missing; holds `snapshot.bin` and `transactions.jsonl`. */
  dataDir: string;
  /**
   * Debounce for state snapshots after changes; under continuous load a snapshot is still taken every 10 s.
   * Landed transactions are durable before that through the transaction log. @defaultValue 250
   */
  snapshotIntervalMs?: number;
  /** Wall-clock length of a slot: each one is a new block with a new blockhash. @defaultValue 400 */
  slotIntervalMs?: number;
  logger?: Logger;
}

export interface Localnet {
  /** `http://127.0.0.1:<actual port>` */
  url: string;
  /** Flushes the snapshot and closes the server. */
  close(): Promise<void>;
}

const silent: Logger = { info() {}, warn() {}, error() {} };
const heldLocks = new Set<string>();

export async function startLocalnet(opts: LocalnetOptions): Promise<Localnet> {
  const log = opts.logger ?? silent;
  const host = opts.host ?? '127.0.0.1';
  const dataDir = opts.dataDir;
  await mkdir(dataDir, { recursive: true });
  const unlock = await lockDataDir(dataDir, heldLocks);
  let history: History | null = null;
  try {
    const snap = await readSnapshot(dataDir);
    const chain = snap ? Chain.restore(snap.svm, snap.meta.chain) : Chain.genesis();
    const hist = await History.open(join(dataDir, HISTORY_FILE), log);
    history = hist;

    const save = async (): Promise<void> => {
      const meta: SnapshotMeta = { version: 1, appliedCount: hist.count, chain: chain.exportState(), savedAt: new Date().toISOString() };
      const svmBytes = chain.toBytes();
      // The snapshot must never claim records that are not yet on disk.
      await hist.flushed();
      await writeSnapshot(dataDir, meta, svmBytes);
    };
    const interval = opts.snapshotIntervalMs ?? 250;
    const snapshotter = new Snapshotter(interval, Math.max(interval, 10_000), save, log);
    const rpc = new Rpc(chain, hist, () => snapshotter.changed(), log);

    let replayed = 0;
    if (snap) {
      for (let seq = snap.meta.appliedCount; seq < hist.count; seq++) {
        const rec = await hist.getBySeq(seq);
        if (rec) rpc.replay(rec);
        replayed++;
      }
    } else if (hist.count > 0) {
      log.warn(
        { dataDir, transactions: hist.count },
        'localnet: transaction log without a snapshot; starting a fresh chain, old history kept for queries only',
      );
    }
    chain.fastForwardTo(BigInt(hist.lastSlot));
    if (!snap || replayed > 0) await save();
    if (replayed > 0) log.warn({ replayed }, 'localnet: replayed transactions missing from the snapshot');

    const server = createRpcServer(rpc, log);
    server.keepAliveTimeout = 5000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const ticker = setInterval(() => chain.tick(), Math.max(1, opts.slotIntervalMs ?? 400));
    ticker.unref();
    const port = (server.address() as AddressInfo).port;
    const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
    const url = `http://${urlHost}:${port}`;
    log.info({ url, dataDir, slot: Number(chain.slot), transactions: hist.count }, 'localnet: listening');

    let closing: Promise<void> | null = null;
    return {
      url,
      close() {
        closing ??= (async () => {
          clearInterval(ticker);
          const closed = new Promise<void>((resolve) => server.close(() => resolve()));
          server.closeAllConnections();
          await closed;
          await snapshotter.flush();
          await hist.close();
          await unlock();
        })();
        return closing;
      },
    };
  } catch (e) {
    await history?.close().catch(() => undefined);
    await unlock();
    throw e;
  }
}
