// The `state-proof` command: check your own leaf in the liabilities tree committed on-chain.
import { readFileSync } from 'node:fs';
import { verifyStateProofResponse } from '../protocol/verify/state-proof.ts';
import type { Report } from '../protocol/verify/report.ts';
import { isRecord } from '../protocol/verify/turn.ts';
import type { VerifierContext } from './context.ts';

/** From a saved response (`--file`, with `--wallet`) or fetched with a bearer token (`--token`). */
export async function stateProofCommand(ctx: VerifierContext, options: { token?: string; file?: string; wallet?: string }): Promise<Report[]> {
  let body: unknown;
  if (options.file) body = JSON.parse(readFileSync(options.file, 'utf8')) as unknown;
  else if (options.token) {
    const res = await fetch(`${ctx.api.base}/protocol/v1/player/state-proof`, { headers: { authorization: `Bearer ${options.token}` } });
    body = await res.json();
    if (!res.ok) throw new Error(`state-proof: ${JSON.stringify(body)}`);
  } else throw new Error('state-proof needs --token <bearer> or --file <response.json>');
  const wallet = options.wallet ?? (isRecord(body) && typeof body.wallet === 'string' ? body.wallet : '');
  const signature = isRecord(body) && typeof body.commitSignature === 'string' ? body.commitSignature : '';
  const tx = signature ? await ctx.chain.transaction(signature) : null;
  const report = verifyStateProofResponse(body, wallet, tx, ctx.config.operatorPublicKey);
  if (report.ok && options.wallet && isRecord(body) && body.wallet !== options.wallet) {
    report.checks.push({ name: 'wallet', status: 'fail', reason: `the proof is for ${String(body.wallet)}, not ${options.wallet}` });
    report.ok = false;
  }
  return [report];
}
