// `pfws-verify monitor --state <dir>`: polls the chain and the service, verifies only what is new since the
// saved state (consistency included), prints one JSON line per finding and per poll, and exits non-zero
// on a violation. A poll that finds one never saves: the monitor does not move onto a fork.
import type { VerifierContext } from './context.ts';
import { auditRun } from './run.ts';
import { exitCodeOf, EXIT } from './format.ts';
import { loadState, saveState } from './state.ts';
import { verdictOf, type Verdict } from '../protocol/verify/report.ts';
import type { CheckName } from '../protocol/verify/check-names.ts';

/** One JSON line: a finding under a check's name (`poll` when the poll itself failed), or a poll's summary. */
export type MonitorLine =
  | { type: 'violation' | 'unchecked'; check: CheckName | 'poll'; subject?: string; reason?: string | undefined; at: string }
  | { type: 'poll'; verdict: Verdict; size: number; fromSize: number; newEntries: number; ms: number; at: string };

export interface MonitorOptions {
  apiUrl: string;
  stateFile: string;
  intervalMs: number;
  /** Stop after this many polls (`--once` is 1). */
  polls: number;
  line(json: MonitorLine): void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runMonitor(open: () => Promise<VerifierContext>, options: MonitorOptions): Promise<number> {
  let last = EXIT.verified as number;
  for (let poll = 1; poll <= options.polls; poll++) {
    if (poll > 1) await sleep(options.intervalMs);
    const started = Date.now();
    const at = new Date().toISOString();
    let ctx: VerifierContext;
    let prior: ReturnType<typeof loadState>;
    try {
      prior = loadState(options.stateFile, options.apiUrl);
      ctx = await open();
    } catch (err) {
      options.line({ type: 'unchecked', check: 'poll', reason: (err as Error).message, at });
      last = EXIT.unverified;
      continue;
    }
    if (prior && prior.trustRootFingerprint !== ctx.trust.fingerprint) {
      options.line({
        type: 'violation',
        check: 'trust-root',
        subject: 'monitor state',
        reason: `the saved state was verified under trust root ${prior.trustRootFingerprint}, this run pins ${ctx.trust.fingerprint}`,
        at,
      });
      return EXIT.violation;
    }
    const cluster = ctx.setup.list.find((c) => c.name === 'rpc-cluster' && c.status !== 'pass');
    if (cluster) {
      options.line({ type: 'unchecked', check: cluster.name, reason: cluster.reason, at });
      last = EXIT.unverified;
      continue;
    }
    let result: Awaited<ReturnType<typeof auditRun>>;
    try {
      result = await auditRun(ctx, prior, { apiUrl: options.apiUrl });
    } catch (err) {
      options.line({ type: 'unchecked', check: 'poll', reason: (err as Error).message, at });
      last = EXIT.unverified;
      continue;
    }
    for (const r of result.reports) {
      for (const c of r.checks) {
        if (c.status === 'fail' || c.status === 'error')
          options.line({ type: c.status === 'fail' ? 'violation' : 'unchecked', check: c.name, subject: r.subject, reason: c.reason, at });
      }
    }
    const verdict = verdictOf(result.reports);
    options.line({ type: 'poll', verdict, size: result.size, fromSize: prior?.range.size ?? 0, newEntries: result.entries, ms: Date.now() - started, at });
    if (result.state) saveState(options.stateFile, result.state);
    last = exitCodeOf(verdict);
    if (verdict === 'violation') return last;
  }
  return last;
}
