/**
 * `pfws-verify`: checks the service's plays from public data alone, trusting only a pinned trust root and
 * the chain, read through an RPC of the user's choice. Exit codes: 0 verified, 1 violation found, 2 could
 * not check (network, missing data), 64 usage error.
 * @module
 */
import { parseArgs } from 'node:util';
import { homedir } from 'node:os';
import path from 'node:path';
import type { Report } from '../protocol/verify/report.ts';
import { normalizeApiUrl } from './http.ts';
import { openContext, type VerifierContext } from './context.ts';
import { createProgress, silentProgress } from './progress.ts';
import { receiptCommand } from './receipts.ts';
import { manifestsCommand } from './manifests.ts';
import { logCommand } from './log.ts';
import { stateProofCommand } from './state-proof.ts';
import { auditRun, setupReport } from './run.ts';
import { runMonitor } from './monitor.ts';
import { EXIT, exitCodeOf, formatJson, formatText, summarize } from './format.ts';
import { installCrypto } from './crypto.ts';
import { UsageError } from './trust.ts';
import { parseWitnessKey } from '../protocol/witness.ts';
import { saveState, stateFileOf } from './state.ts';
import { isAddress } from '../protocol/address.ts';

export const USAGE = `Usage: pfws-verify <command> [options]

Commands:
  receipt <id|file>         verify one receipt (by id from the API, or a saved JSON file): its bets, the
                            receipt rebuilt from them, its inclusion on-chain, its session key on-chain
  all [--since time]        the whole log the chain commits, read as tiles: every entry and receipt, every
                            committed root rebuilt, each RNG index once, the checkpoint, the manifest
                            chain, solvency against the pinned vault (--since: from that time on)
  log                       every commit memo on-chain against the published list, consistency proofs
                            between them, the signed checkpoint, and solvency
  manifests                 the journal manifest chain, every eventRoot recomputed, and each manifest an
                            on-chain commit names found on it
  monitor [--once]          verify what is new since the state saved in --state, every --interval seconds;
                            one JSON line per finding; exits non-zero on a violation
  state-proof --token=T | --file F [--wallet W]
                            check a player's leaf in the committed liabilities tree

Options:
  --api URL          the service (default $PFWS_API_URL or http://localhost:8080/api)
  --rpc URL          the chain RPC to trust (default: the one the service names, with a warning)
  --trust-root FILE  the trust root to check against (default: the one pinned on first use)
  --state DIR        where pins and the monitor state live (default $PFWS_VERIFY_HOME or ~/.config/pfws-verify)
  --workers N        worker threads for bulk checks (default: one per core; 0 checks inline)
  --witness VKEY     a witness (c2sp.org/tlog-witness) whose cosignature the checkpoint must carry, as its
                     vkey <name>+<hex key ID>+<base64 key>; repeatable
  --witness-quorum N how many of the --witness keys must have cosigned it (default: all of them)
  --interval S       monitor: seconds between polls (default 30)
  --json             print the results as JSON
  --verbose          list every check, not only failures
  --quiet            no progress on stderr
  -h, --help         show this help

Exit codes: 0 verified, 1 violation found, 2 could not check (network, missing data), 64 usage error.`;

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** Raw stderr, for progress. */
  progress?(text: string): void;
  env: Record<string, string | undefined>;
  /** Draw a progress bar (stderr is a terminal) rather than periodic lines. */
  tty: boolean;
  /** Milliseconds between progress lines when not on a terminal. @defaultValue 5000 */
  progressEveryMs?: number;
}

const defaultIo: CliIo = {
  out: (t) => process.stdout.write(`${t}\n`),
  err: (t) => process.stderr.write(`${t}\n`),
  progress: (t) => process.stderr.write(t),
  env: process.env,
  tty: Boolean(process.stderr.isTTY),
};

const OPTIONS = {
  api: { type: 'string' },
  rpc: { type: 'string' },
  'trust-root': { type: 'string' },
  state: { type: 'string' },
  workers: { type: 'string' },
  interval: { type: 'string' },
  polls: { type: 'string' },
  once: { type: 'boolean', default: false },
  json: { type: 'boolean', default: false },
  verbose: { type: 'boolean', default: false },
  quiet: { type: 'boolean', default: false },
  since: { type: 'string' },
  token: { type: 'string' },
  file: { type: 'string' },
  wallet: { type: 'string' },
  witness: { type: 'string', multiple: true },
  'witness-quorum': { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

const intOption = (value: string | undefined, name: string, min: number, max: number, fallback: number): number => {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) throw new UsageError(`--${name} must be an integer in [${min}, ${max}]`);
  return Number(value);
};

/** Runs the CLI and returns its exit code. */
export async function runCli(argv: readonly string[], io: CliIo = defaultIo): Promise<number> {
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; allowPositionals: true; options: typeof OPTIONS }>>;
  try {
    parsed = parseArgs({ args: [...argv], allowPositionals: true, options: OPTIONS });
  } catch (err) {
    io.err(`${(err as Error).message}\n\n${USAGE}`);
    return EXIT.usage;
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    io.out(USAGE);
    return command || values.help ? EXIT.verified : EXIT.usage;
  }
  try {
    let sinceMs = 0;
    if (values.since !== undefined) {
      sinceMs = Date.parse(values.since);
      if (!Number.isFinite(sinceMs)) throw new UsageError(`--since must be a time (ISO 8601), got ${JSON.stringify(values.since)}`);
    }
    const { wallet } = values;
    if (wallet !== undefined && !isAddress(wallet)) throw new UsageError(`--wallet must be a base58 Solana address, got ${JSON.stringify(wallet)}`);
    const workers = values.workers === undefined ? 'auto' : intOption(values.workers, 'workers', 0, 256, 0);
    const witnessKeys = (values.witness ?? []).map((vkey) => {
      try {
        return parseWitnessKey(vkey);
      } catch (err) {
        throw new UsageError(`--witness ${JSON.stringify(vkey)}: ${(err as Error).message}`);
      }
    });
    if (values['witness-quorum'] !== undefined && !witnessKeys.length) throw new UsageError('--witness-quorum needs at least one --witness');
    const witnesses = {
      keys: witnessKeys,
      quorum: intOption(values['witness-quorum'], 'witness-quorum', 1, Math.max(1, witnessKeys.length), witnessKeys.length),
    };
    const intervalMs = intOption(values.interval, 'interval', 1, 86_400, 30) * 1000;
    const polls = values.once ? 1 : intOption(values.polls, 'polls', 1, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
    if (!['receipt', 'all', 'log', 'manifests', 'monitor', 'state-proof'].includes(command)) throw new UsageError(`unknown command ${JSON.stringify(command)}`);
    if (command === 'receipt' && !rest[0]) throw new UsageError('receipt needs a receipt id or a file');
    if (command === 'state-proof' && !values.token && !values.file) throw new UsageError('state-proof needs --token=<bearer> or --file <response.json>');
    installCrypto(io.env.PFWS_VERIFY_CRYPTO);
    const apiUrl = normalizeApiUrl(values.api ?? io.env.PFWS_API_URL ?? 'http://localhost:8080/api');
    const stateDir = values.state ?? io.env.PFWS_VERIFY_HOME ?? path.join(io.env.XDG_CONFIG_HOME ?? path.join(homedir(), '.config'), 'pfws-verify');
    const write = io.progress ?? ((t: string) => io.err(t.replace(/\n$/, '')));
    const progress =
      values.quiet || command === 'monitor'
        ? silentProgress
        : createProgress({ write, tty: io.tty, ...(io.progressEveryMs !== undefined ? { lineEveryMs: io.progressEveryMs } : {}) });
    const open = (): Promise<VerifierContext> =>
      openContext({
        apiUrl,
        ...(values.rpc ? { rpcUrl: values.rpc } : {}),
        ...(values['trust-root'] ? { trustRootFile: values['trust-root'] } : {}),
        stateDir,
        progress,
        workers,
        witnesses,
        notice: (t) => io.err(t),
      });

    if (command === 'monitor') {
      return await runMonitor(open, { apiUrl, stateFile: stateFileOf(stateDir, apiUrl), intervalMs, polls, line: (json) => io.out(JSON.stringify(json)) });
    }
    const ctx = await open();
    let reports: Report[];
    // Data from an RPC of another cluster (or none) can be checked against nothing: stop before reading it.
    const offChain = ctx.setup.list.some((c) => c.name === 'rpc-cluster' && c.status !== 'pass');
    switch (offChain ? 'off-chain' : command) {
      case 'off-chain':
        reports = [setupReport(ctx)];
        break;
      case 'receipt':
        reports = [setupReport(ctx), ...(await receiptCommand(ctx, rest[0] as string))];
        break;
      case 'manifests':
        reports = [setupReport(ctx), ...(await manifestsCommand(ctx))];
        break;
      case 'log':
        reports = [setupReport(ctx), ...(await logCommand(ctx))];
        break;
      case 'all': {
        const run = await auditRun(ctx, null, { ...(sinceMs ? { sinceMs } : {}), apiUrl });
        reports = run.reports;
        // A full audit is a monitor's starting point: the next `monitor` poll reads only what is new.
        if (run.state && !sinceMs) saveState(stateFileOf(stateDir, apiUrl), run.state);
        break;
      }
      default:
        reports = [
          setupReport(ctx),
          ...(await stateProofCommand(ctx, {
            ...(values.token ? { token: values.token } : {}),
            ...(values.file ? { file: values.file } : {}),
            ...(wallet ? { wallet } : {}),
          })),
        ];
    }
    io.out(values.json ? formatJson(reports) : formatText(reports, values.verbose));
    return exitCodeOf(summarize(reports).verdict);
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`${err.message}\n\n${USAGE}`);
      return EXIT.usage;
    }
    io.err(`pfws-verify: could not check: ${(err as Error).message}`);
    return EXIT.unverified;
  }
}
