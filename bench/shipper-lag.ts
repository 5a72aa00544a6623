// How far analytics trail settlement under load: what `pfws_shipper_lag_events` reports (journal events not yet in
// ClickHouse), read from the same Redis records the metric reads — the journal seq and the shipper heartbeat, which
// the shipper beats after every INSERT — every 50 ms, and how long each event waited to be shipped.
import { Redis } from 'ioredis';
import { HeartbeatStore } from '../store/heartbeats.ts';
import { Keys } from '../store/keys.ts';
import type { BenchService } from './service.ts';

interface Sample {
  at: number;
  journal: number;
  shipped: number;
}

export interface ShipperLag {
  p50Events: number;
  p99Events: number;
  maxEvents: number;
  /** From a sample's newest journal event to the first sample that saw it shipped (±50 ms). */
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;

export class ShipperLagSampler {
  private readonly redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  private readonly keys: Keys;
  private readonly heartbeats: HeartbeatStore;
  private readonly samples: Sample[] = [];
  private timer: NodeJS.Timeout | null = null;
  private sampling: Promise<void> = Promise.resolve();

  constructor(service: BenchService) {
    this.keys = new Keys(service.prefix);
    this.heartbeats = new HeartbeatStore(this.redis, this.keys);
  }

  start(everyMs = 50): void {
    this.timer = setInterval(() => {
      this.sampling = this.sampling.then(async () => {
        await this.sample().catch(() => {});
      });
    }, everyMs);
  }

  /**
   * Stops sampling under load, then waits (up to `drainMs`) for the shipper to catch up with the last sample, so the
   * events of the load's last moments get their wait too; an event still unshipped then counts with its wait so far.
   */
  async stop(drainMs = 30_000): Promise<ShipperLag> {
    if (this.timer) clearInterval(this.timer);
    await this.sampling;
    const loadSamples = this.samples.length;
    const target = this.samples.at(-1)?.journal ?? 0;
    const deadline = performance.now() + drainMs;
    while (loadSamples > 0 && performance.now() < deadline && (await this.sample()).shipped < target) await new Promise((r) => setTimeout(r, 50));
    await this.redis.quit();
    return this.figures(loadSamples);
  }

  private async sample(): Promise<Sample> {
    const at = performance.now();
    const [journal, beat] = await Promise.all([this.redis.get(this.keys.journalSeq()), this.heartbeats.read('shipper')]);
    const sample = { at, journal: Number(journal ?? 0), shipped: Number(beat?.fields.shippedSeq ?? 0) };
    this.samples.push(sample);
    return sample;
  }

  private figures(loadSamples: number): ShipperLag {
    const all = this.samples;
    const events: number[] = [];
    const waits: number[] = [];
    let j = 0;
    for (let i = 0; i < loadSamples; i++) {
      const s = all[i] as Sample;
      events.push(Math.max(0, s.journal - s.shipped));
      if (j < i) j = i;
      while (j < all.length - 1 && (all[j] as Sample).shipped < s.journal) j++;
      waits.push((all[j] as Sample).at - s.at);
    }
    events.sort((a, b) => a - b);
    waits.sort((a, b) => a - b);
    return {
      p50Events: percentile(events, 50),
      p99Events: percentile(events, 99),
      maxEvents: events.at(-1) ?? 0,
      p50Ms: Math.round(percentile(waits, 50)),
      p99Ms: Math.round(percentile(waits, 99)),
      maxMs: Math.round(waits.at(-1) ?? 0),
    };
  }
}
