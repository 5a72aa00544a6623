/**
 * `pfws-verify`: checks the service's plays from public data alone (its public API reads and the chain
 * RPC it publishes). Exit code 0 only when every check passes; 1 when one fails; 2 on a usage or
 * network error.
 * @module
 */
import { parseArgs } from 'node:util';
import { setCryptoBackend } from '../protocol/crypto.ts';
import { nodeBackend } from '../protocol/crypto-node.ts';
import type { Report } from '../protocol/verify/report.ts';
import { normalizeApiUrl } from './http.ts';
import { openContext } from './context.ts';
import { silentProgress, terminalProgress } from './progress.ts';
import { receiptCommand, receiptsSince } from './receipts.ts';
import { manifestsCommand } from './manifests.ts';
import { anchorMemos, logCommand } from './log.ts';
import { stateProofCommand } from './state-proof.ts';
import { formatJson, formatText, summarize } from './format.ts';

export const USAGE = `Usage: pfws-verify <command> [options]

Commands:
  receipt <id|file>         verify one receipt (by id from the API, or a saved JSON file)
  manifests [--from hash]   walk the journal manifest chain back from the latest (or from hash)
                            and recompute every eventRoot from the public events
  log                       check every commit against the anchor key's on-chain memos,
                            with consistency proofs between commits and the vault balance
  all [--since time]        log + manifests + every anchored receipt since the time (ISO 8601),
                            each RNG index used once
  state-proof --token T | --file F [--wallet W]
                            check a player's leaf in the committed liabilities tree

Options:
  --api URL      the service (default $PFWS_API_URL or http://localhost:8080/api)
  --rpc URL      use this chain RPC instead of the one the service publishes
  --json         print the results as JSON
  --verbose      list every check, not only failures
  -h, --help     show this help`;

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  env: Record<string, string | undefined>;
  /** Draw a progress bar on stderr when it is a terminal. */
  tty: boolean;
}

const defaultIo: CliIo = {
  out: (t) => process.stdout.write(`${t}\n`),
  err: (t) => process.stderr.write(`${t}\n`),
  env: process.env,
  tty: Boolean(process.stderr.isTTY),
};

const parseCliArgs = (argv: readonly string[]) =>
  parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      api: { type: 'string' },
      rpc: { type: 'string' },
      json: { type: 'boolean', default: false },
      verbose: { type: 'boolean', default: false },
      since: { type: 'string' },
      from: { type: 'string' },
      token: { type: 'string' },
      file: { type: 'string' },
      wallet: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });

/** Runs the CLI and returns its exit code. */
export async function runCli(argv: readonly string[], io: CliIo = defaultIo): Promise<number> {
  let parsed: ReturnType<typeof parseCliArgs>;
  try {
    parsed = parseCliArgs(argv);
  } catch (err) {
    io.err(`${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    io.out(USAGE);
    return command || values.help ? 0 : 2;
  }
  let sinceMs = 0;
  if (values.since !== undefined) {
    sinceMs = Date.parse(values.since);
    if (!Number.isFinite(sinceMs)) {
      io.err(`--since must be a time (ISO 8601), got ${JSON.stringify(values.since)}`);
      return 2;
    }
  }
  setCryptoBackend(nodeBackend);
  const apiUrl = normalizeApiUrl(values.api ?? io.env.PFWS_API_URL ?? 'http://localhost:8080/api');
  const progress = io.tty && !values.json ? terminalProgress() : silentProgress;
  let reports: Report[];
  try {
    const ctx = await openContext(apiUrl, progress, values.rpc);
    switch (command) {
      case 'receipt': {
        const target = rest[0];
        if (!target) throw new UsageError('receipt needs a receipt id or a file');
        reports = await receiptCommand(ctx, target);
        break;
      }
      case 'manifests':
        reports = [(await manifestsCommand(ctx, values.from)).report];
        break;
      case 'log':
        reports = [await logCommand(ctx)];
        break;
      case 'all': {
        const memos = await anchorMemos(ctx);
        const manifests = await manifestsCommand(ctx, undefined, sinceMs);
        const log = await logCommand(ctx, { memos, manifestKnown: (h) => manifests.hashes.has(h) });
        reports = [log, manifests.report, ...(await receiptsSince(ctx, sinceMs))];
        break;
      }
      case 'state-proof':
        reports = await stateProofCommand(ctx, {
          ...(values.token ? { token: values.token } : {}),
          ...(values.file ? { file: values.file } : {}),
          ...(values.wallet ? { wallet: values.wallet } : {}),
        });
        break;
      default:
        throw new UsageError(`unknown command ${JSON.stringify(command)}`);
    }
  } catch (err) {
    if (err instanceof UsageError) io.err(`${err.message}\n\n${USAGE}`);
    else io.err(`pfws-verify: ${(err as Error).message}`);
    return 2;
  }
  io.out(values.json ? formatJson(reports) : formatText(reports, values.verbose));
  return summarize(reports).ok ? 0 : 1;
}

class UsageError extends Error {
  override readonly name = 'UsageError';
}
