// The worker copies the archive every `archiveEveryMs`, not every pass (issue 25): each copy is an INSERT per archive
// table, a part for chDB to write and merge, while the lease and the heartbeat still go every pass.
import { afterEach, describe, expect, it } from 'vitest';
import type { AnalyticsEngine } from '../../analytics/engine.ts';
import { EngineHolder } from '../../analytics/engine-holder.ts';
import { startAnalyticsWorker, type AnalyticsWorker } from '../../anchor-worker/analytics.ts';
import type { JournalStream } from '../../store/analytics.ts';

/** An engine that holds nothing: migrations and the shipper's recovery see empty tables. */
const emptyEngine: AnalyticsEngine = {
  kind: 'chdb',
  database: 'default',
  query: async () => [],
  exec: async () => {},
  insert: async () => {},
  settle: async () => {},
  close: async () => {},
};

const idleStream = {
  lastSeq: async () => 0,
  blockingReader: () => ({
    read: async (_after: string, _count: number, blockMs: number) => {
      await new Promise((r) => setTimeout(r, blockMs));
      return [];
    },
    close() {},
  }),
} as unknown as JournalStream;

describe('analytics worker: archive cadence', () => {
  let worker: AnalyticsWorker | null = null;
  afterEach(async () => {
    await worker?.stop();
    worker = null;
  });

  it('copies the archive once per archiveEveryMs while passes run every passMs', async () => {
    let passes = 0;
    let copies = 0;
    worker = startAnalyticsWorker({
      engine: new EngineHolder(async () => emptyEngine),
      stream: idleStream,
      lease: {
        acquire: async () => true,
        renew: async () => {
          passes++;
          return true;
        },
        release: async () => {},
      },
      archive: {
        anchors: { logSize: async () => 0, filledSize: async () => 0, logItems: async () => [], receiptFieldBytes: async () => [] },
        manifests: { recordsAfterSeq: async () => [] },
        progress: {
          archiveProgress: async () => {
            copies++;
            return { settled: 0, anchored: 0, manifestSeq: 0 };
          },
          setArchiveProgress: async () => {},
        },
      },
      heartbeats: { beat: async () => {} },
      clock: () => new Date(),
      logger: { info() {}, warn() {}, error() {} },
      passMs: 20,
      archiveEveryMs: 400,
      shipper: { blockMs: 20 },
    });
    await new Promise((r) => setTimeout(r, 700));
    expect(passes).toBeGreaterThanOrEqual(10);
    expect(copies).toBeGreaterThanOrEqual(1);
    expect(copies).toBeLessThanOrEqual(2);
  });
});
