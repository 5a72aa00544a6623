// Requests generated from the OpenAPI document with fast-check, sent while the load plays: never a 5xx, every
// error in the envelope with a known code and its status.
import fc from 'fast-check';
import type { Harness } from '../harness.ts';
import type { RoundReport } from '../report.ts';
import { answerProblem, anyValueOf, bodyFor, nearMissOf, operations, paramsFor, queryFor, sendOperation } from '../../test/helpers/openapi-fuzz.ts';
import { beginRound, endRound } from './common.ts';

export async function fuzzRound(h: Harness, round: number): Promise<RoundReport> {
  const seed = h.rng.intSeed();
  const runs = h.profile.fuzzRunsPerOperation;
  const report = beginRound(h, round, 'fuzz', `OpenAPI fuzz, ${runs} requests per operation (fast-check seed ${seed}) under load`);
  const player = await h.newPlayer(20);
  // Sign-out last, so that every other operation is fuzzed with a live token.
  const signOut = (op: { method: string; path: string }) => op.method === 'DELETE' && op.path === '/api/wallet/session';
  const ops = (await operations(h.service.api)).filter((op) => op.path !== '/api/dev/faucet').sort((a, b) => Number(signOut(a)) - Number(signOut(b)));
  const nearMiss = nearMissOf([player.client.session.publicKey, player.wallet, player.client.session.publicKey.toLowerCase()]);
  const anyValue = anyValueOf(nearMiss);
  h.load.start();
  let sent = 0;
  let status5xx = 0;
  const problems: string[] = [];
  for (const [i, op] of ops.entries()) {
    const inputs = fc.sample(fc.tuple(bodyFor(op, anyValue), queryFor(op, nearMiss), paramsFor(op, nearMiss)), { numRuns: runs, seed: seed + i });
    for (const [body, query, params] of inputs) {
      sent++;
      let problem: string | null;
      let where = `${op.method} ${op.path}`;
      try {
        const res = await sendOperation(h.service.api, player.client.token, op, body, query as Record<string, string>, params as Record<string, string>);
        if (res.status >= 500) status5xx++;
        problem = answerProblem(res);
        where = `${op.method} ${res.url} ${JSON.stringify(body).slice(0, 120)} -> ${res.status} ${res.text.slice(0, 160)}`;
      } catch (err) {
        problem = `no answer: ${(err as Error).message}`;
      }
      if (problem) problems.push(`${problem}: ${where}`);
    }
  }
  // The fuzz may have signed the player out (DELETE /api/wallet/session); the end-of-round checks read its sessions.
  await player.client.signIn();
  report.checks.push(
    { name: 'fuzz: no 5xx', held: status5xx === 0, detail: `${status5xx} of ${sent} requests over ${ops.length} operations` },
    {
      name: 'fuzz: every error in the envelope with a known code and its status',
      held: problems.length === 0,
      detail: problems.length ? `${problems.length} problems, e.g. ${problems.slice(0, 3).join(' | ')}` : `${sent} answers`,
    },
  );
  await endRound(h, report);
  report.figures.status5xx += status5xx;
  report.figures.requests += sent;
  return report;
}
