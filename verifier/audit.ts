// The bulk audit: every entry the chain commits, read as tiles (256 a request, several in flight) and inspected
// on every core by the worker threads that read them, then checked in log order against the on-chain roots; then each session key on-chain.
import { availableParallelism } from 'node:os';
import type { CompactRange } from '../protocol/compact-range.ts';
import { TILE_WIDTH } from '../protocol/tlog-tiles.ts';
import type { IndexSet } from '../protocol/verify/index-set.ts';
import { LogAudit, type ExpectedRoot } from '../protocol/verify/log-audit.ts';
import type { Report } from '../protocol/verify/report.ts';
import type { RpcTransaction } from '../protocol/verify/chain.ts';
import type { VerifierContext } from './context.ts';
import { inlineInspector, workerInspector } from './pool.ts';
import { unpackInspection } from './inspect-bundle.ts';
import { SessionKeyResolver, type WalletState } from './session-keys.ts';

export interface AuditInput {
  /** The verified range to extend. */
  from: CompactRange;
  /** The size to audit to: the chain's, never the API's. */
  to: number;
  roots: ReadonlyMap<number, ExpectedRoot>;
  used?: Map<string, IndexSet>;
  /** Commit transactions by signature (the scanned anchor-key history). */
  commitTx(signature: string): RpcTransaction | null | undefined;
  wallets?: Record<string, WalletState>;
}

export interface AuditOutput {
  audit: LogAudit;
  reports: Report[];
  resolver: SessionKeyResolver;
}

/** Default worker threads: every core, when there is enough work to pay for starting them. */
export const defaultWorkers = (): number => availableParallelism();
/**
 * Below this many entries a run checks inline: each worker thread costs a fresh V8 isolate, loading and
 * compiling the verifier again (a few hundred ms of CPU), more than a monitor poll of 1,000 entries saves.
 */
export const MIN_ENTRIES_FOR_WORKERS = 8 * TILE_WIDTH;

export async function auditEntries(ctx: VerifierContext, input: AuditInput): Promise<AuditOutput> {
  const audit = new LogAudit({
    range: input.from,
    roots: input.roots,
    ...(input.used ? { used: input.used } : {}),
    context: { operatorPublicKey: ctx.anchorKeys, rng: ctx.rng, commitTx: input.commitTx },
  });
  const start = input.from.size;
  const count = input.to - start;
  const workers = ctx.workers === 'auto' ? (count >= MIN_ENTRIES_FOR_WORKERS ? defaultWorkers() : 0) : ctx.workers;
  const inspector = workers > 0 ? workerInspector(workers) : inlineInspector(ctx.api);
  const window = Math.max(4, workers * 3);
  const first = Math.floor(start / TILE_WIDTH);
  const last = Math.ceil(input.to / TILE_WIDTH) - 1;
  const jobs = new Map<number, ReturnType<typeof inspector.inspect>>();
  let next = first;
  const launch = () => {
    while (next <= last && jobs.size < window) {
      const tile = next++;
      const width = Math.min(TILE_WIDTH, input.to - tile * TILE_WIDTH);
      const from = Math.max(start, tile * TILE_WIDTH);
      jobs.set(tile, inspector.inspect({ api: ctx.api.base, start: tile * TILE_WIDTH, width, from, ackKeys: ctx.trust.root.keys.ack }));
    }
  };
  ctx.progress.start('bet-log entries', count);
  try {
    for (let tile = first; tile <= last && count > 0; tile++) {
      launch();
      const result = await jobs.get(tile)!;
      jobs.delete(tile);
      if (!result.leaves) {
        // Without the leaves the tree cannot go on: everything from here is unread.
        const from = Math.max(start, result.start);
        audit.missing(from, input.to, result.problem?.reason ?? 'unreadable', result.problem?.withheld ? 'fail' : 'error');
        break;
      }
      // Leaves and inspections start at the audit's first entry, which may be inside the first tile.
      const offset = Math.max(start, result.start);
      result.leaves.forEach((leafHex, i) => {
        audit.add({ index: offset + i, leafHex, inspection: unpackInspection(result, i), problem: result.problem });
      });
      ctx.progress.update(audit.size - start);
    }
  } finally {
    ctx.progress.finish();
    await Promise.allSettled(jobs.values());
    await inspector.close();
  }
  const resolver = new SessionKeyResolver(ctx, input.wallets);
  await resolver.resolve(audit.sessionKeys());
  return { audit, reports: audit.finish(resolver.lookup), resolver };
}
