// Shared pieces of the verifier's service tests: the CLI run in-process against a test service, waiting for
// anchoring, and writing memos with the service's own anchor key (a cheating operator).
import { runCli } from '../../verifier/cli.ts';
import { memoInstruction } from '../../chain/memo.ts';
import { sendAndConfirm } from '../../chain/send.ts';
import { TransparencyStore } from '../../store/transparency.ts';
import type { TestService } from '../helpers/service.ts';

export interface CliRun {
  code: number;
  out: string;
  err: string;
  progress: string;
}

/** Runs `pfws-verify` in-process against `svc`, reading the chain through the localnet RPC. */
export async function cli(svc: TestService, stateDir: string, args: string[], extra: { rpc?: boolean; progressEveryMs?: number } = {}): Promise<CliRun> {
  let out = '';
  let err = '';
  let progress = '';
  const rpc = extra.rpc === false ? [] : ['--rpc', svc.rpcUrl];
  const code = await runCli([...args, '--api', svc.api, ...rpc, '--state', stateDir], {
    out: (t) => (out += `${t}\n`),
    err: (t) => (err += `${t}\n`),
    progress: (t) => (progress += t),
    env: {},
    tty: false,
    ...(extra.progressEveryMs !== undefined ? { progressEveryMs: extra.progressEveryMs } : {}),
  });
  return { code, out, err, progress };
}

/** The JSON lines a monitor printed. */
export const lines = (run: CliRun): Record<string, any>[] =>
  run.out
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, any>);

/** Waits until every settled entry is committed, filled and covered by a signed checkpoint. */
export async function waitAnchored(svc: TestService): Promise<number> {
  const { redis, keys } = svc.wiring;
  const store = new TransparencyStore(redis, keys);
  for (let i = 0; i < 400; i++) {
    const [size, state] = await Promise.all([redis.llen(keys.betLog()), redis.hmget(keys.anchor(), 'committedSize', 'filled')]);
    const checkpoint = await store.latestCheckpoint();
    if (size > 0 && Number(state[0]) === size && Number(state[1]) === size && checkpoint?.size === size) return size;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the bet log was not anchored in time');
}

/** Posts a memo signed by the service's anchor key alone: what a cheating operator can do. */
export async function postAnchorMemo(svc: TestService, text: string): Promise<string> {
  const signer = svc.wiring.operator.anchor.signer;
  return sendAndConfirm(svc.wiring.rpc, signer, [memoInstruction(text, [signer])]);
}
