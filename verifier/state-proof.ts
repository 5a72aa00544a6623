// The `state-proof` command: check your own leaf in the liabilities tree committed on-chain.
import { readFileSync } from 'node:fs';
import { verifyStateProofResponse } from '../protocol/verify/state-proof.ts';
import type { Report } from '../protocol/verify/report.ts';
import { isRecord } from '../protocol/verify/turn.ts';
import type { VerifierContext } from './context.ts';
import { UsageError } from './trust.ts';
import type { Address } from '../protocol/address.ts';

/** From a saved response (`--file`, with `--wallet`) or fetched with a bearer token (`--token`). */
export async function stateProofCommand(ctx: VerifierContext, options: { token?: string; file?: string; wallet?: Address }): Promise<Report[]> {
  let body: unknown;
  if (options.file) {
    try {
      body = JSON.parse(readFileSync(options.file, 'utf8'));
    } catch (err) {
      throw new UsageError(`${options.file} is not a readable JSON file: ${(err as Error).message}`);
    }
  } else if (options.token) {
    body = await ctx.api.get('/protocol/v1/player/state-proof', 1024 * 1024, { authorization: `Bearer ${options.token}` });
  } else throw new UsageError('state-proof needs --token <bearer> or --file <response.json>');
  const wallet = options.wallet ?? (isRecord(body) && typeof body.wallet === 'string' ? body.wallet : '');
  const signature = isRecord(body) && typeof body.commitSignature === 'string' ? body.commitSignature : '';
  const tx = signature ? await ctx.chain.transaction(signature) : null;
  let report: Report = verifyStateProofResponse(body, wallet, tx, ctx.anchorKeys[ctx.anchorKeys.length - 1] as string);
  for (const key of ctx.anchorKeys.slice(0, -1)) if (!report.ok) report = verifyStateProofResponse(body, wallet, tx, key);
  if (report.ok && options.wallet && isRecord(body) && body.wallet !== options.wallet) {
    report.checks.push({ name: 'wallet', status: 'fail', reason: `the proof is for ${String(body.wallet)}, not ${options.wallet}` });
    report.ok = false;
  }
  return [report];
}
