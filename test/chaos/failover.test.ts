// The failover suite's short profile (chaos/failover.ts): the service in Sentinel mode with REDIS_WAIT_REPLICAS=1
// against a primary, a replica and three Sentinels of its own; the primary killed under load while Sentinel fails
// over, the replica hung; no acknowledged bet lost, every answer meanwhile 200 or 503 with Retry-After, the books
// exact against the vault, the verifier passing (no fork).
import { describe, expect, it } from 'vitest';
import { runFailover } from '../../chaos/failover.ts';
import { FAILOVER_SHORT } from '../../chaos/profiles.ts';
import { SeededRandom } from '../../chaos/random.ts';
import { formatReport, violations, type ChaosReport } from '../../chaos/report.ts';

describe('fault suite, Redis failover (short profile)', () => {
  let report: ChaosReport;

  it('runs every round against its own primary, replica, Sentinels and service', { timeout: 600_000 }, async () => {
    const seed = process.env.CHAOS_SEED ?? SeededRandom.newSeed();
    console.log(`failover short profile, seed ${seed} (replay: npm run chaos -- --suite failover --profile short --seed ${seed})`);
    report = await runFailover({ profile: FAILOVER_SHORT, seed });
    console.log(formatReport(report));
    expect(report.rounds.map((r) => r.kind)).toEqual(['steady', 'redis:failover', 'redis:replica-loss', 'final']);
    expect(report.rounds.reduce((n, r) => n + r.figures.acked, 0)).toBeGreaterThan(0);
  });

  it('loses no acknowledged bet', () => {
    const lost = report.rounds.map((r) => [r.round, r.figures.lost] as const).filter(([, n]) => n > 0);
    expect(lost, `seed ${report.seed}`).toEqual([]);
  });

  it('holds every check: answers during the faults, play resuming, recovery, conservation, bet log, books, verifier', () => {
    const bad = violations(report).map(({ round, check }) => `round ${round}: ${check.name}: ${check.detail}`);
    expect(bad, `seed ${report.seed}`).toEqual([]);
  });
});
