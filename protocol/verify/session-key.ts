/**
 * A session key's authorization, as the chain shows it (design §3, §11): a `setup` memo signed by the
 * wallet it names authorizes the key, a `revoke` memo signed the same way ends it. A bet counts only
 * when its key was set up before the bet's commit and not revoked before it.
 *
 * Receipts name a public alias, never the wallet, so the verifier takes from the API only a pointer: a
 * transaction signature. That transaction must carry a setup or revoke memo of the key signed by the
 * wallet it names; the verifier then reads that wallet's own history from the chain and decides from it.
 * @module
 */
import { soleSignerMemos, type RpcTransaction } from './chain.ts';
import type { Checks } from './report.ts';
import type { SessionKeyUse } from './turn.ts';

/**
 * Block times are the cluster's estimate, to the second; a setup may show up to this much after the
 * commit the service accepted once it had seen the setup confirmed.
 */
export const SETUP_CLOCK_SKEW_MS = 60_000;
/**
 * The service applies a revocation once its indexer has seen it confirmed; a revocation counts against a
 * bet only when it is older than this at the bet's commit.
 */
export const REVOKE_GRACE_MS = 60_000;

export interface KeyEvent {
  kind: 'setup' | 'revoke';
  wallet: string;
  sessionPubkey: string;
  signature: string;
  slot: number;
  /** Unix seconds; null when the RPC does not report it. */
  blockTime: number | null;
}

/** What the chain says about one session key of one wallet. */
export interface SessionKeyHistory {
  wallet: string;
  sessionPubkey: string;
  /** Every setup and revoke memo of the key by the wallet, oldest first. */
  events: KeyEvent[];
}

/** The verifier's lookup of a key: found on-chain, shown absent (a violation), or not checkable. */
export type SessionKeyLookup =
  | { status: 'found'; history: SessionKeyHistory }
  | { status: 'missing'; reason: string }
  | { status: 'unavailable'; reason: string };

/**
 * The setup and revoke memos in `tx` signed by the wallet they name, optionally for one key only.
 * @example keyEventsOf(tx, 'NaBUV…').map((e) => e.kind) // ['setup']
 */
export function keyEventsOf(tx: RpcTransaction | null | undefined, sessionPubkey?: string): KeyEvent[] {
  return soleSignerMemos(tx).flatMap((m) =>
    (m.memo.kind === 'setup' || m.memo.kind === 'revoke') &&
    m.memo.wallet === m.signer &&
    (sessionPubkey === undefined || m.memo.sessionPubkey === sessionPubkey)
      ? [{ kind: m.memo.kind, wallet: m.memo.wallet, sessionPubkey: m.memo.sessionPubkey, signature: m.signature, slot: m.slot, blockTime: m.blockTime }]
      : [],
  );
}

/** Orders events by slot; within a slot a revocation comes last, as the indexer applies them. */
export function sortKeyEvents(events: readonly KeyEvent[]): KeyEvent[] {
  const seen = new Set<string>();
  return events
    .filter((e) => {
      const id = `${e.signature}:${e.kind}`;
      if (seen.has(id)) return false;
      seen.add(id);
      return true;
    })
    .sort((a, b) => a.slot - b.slot || (a.kind === b.kind ? 0 : a.kind === 'revoke' ? 1 : -1));
}

/**
 * Whether the key was authorized at `committedAt`: the newest event that counts by then is a setup.
 * @returns null when authorized, else the reason
 */
export function authorizationProblem(history: SessionKeyHistory, committedAt: string): { fail: string } | { error: string } | null {
  const t = Date.parse(committedAt);
  if (!Number.isFinite(t)) return { fail: `the commit time ${JSON.stringify(committedAt)} is not a time` };
  let state: KeyEvent | null = null;
  for (const e of sortKeyEvents(history.events)) {
    if (e.blockTime === null) return { error: `the RPC reports no block time for ${e.signature}` };
    const at = e.blockTime * 1000;
    const counts = e.kind === 'setup' ? at <= t + SETUP_CLOCK_SKEW_MS : at + REVOKE_GRACE_MS < t;
    if (counts) state = e;
  }
  if (!state) return { fail: `no setup memo signed by ${history.wallet} authorized ${history.sessionPubkey} before the commit at ${committedAt}` };
  if (state.kind === 'revoke') return { fail: `${history.wallet} revoked ${history.sessionPubkey} in ${state.signature} before the commit at ${committedAt}` };
  return null;
}

/** Records the `session-key` check of one bet. */
export function checkSessionKey(use: Omit<SessionKeyUse, 'betPayloadHash'>, lookup: SessionKeyLookup | undefined, checks: Checks): void {
  if (lookup === undefined) return checks.skip(use.check, "the key's on-chain authorization was not looked up");
  if (lookup.status === 'missing') return checks.fail(use.check, lookup.reason);
  if (lookup.status === 'unavailable') return checks.error(use.check, lookup.reason);
  if (lookup.history.sessionPubkey !== use.sessionPubkey) return checks.fail(use.check, 'the on-chain history is for another key');
  const problem = authorizationProblem(lookup.history, use.committedAt);
  if (!problem) return checks.pass(use.check);
  if ('error' in problem) return checks.error(use.check, problem.error);
  checks.fail(use.check, problem.fail);
}
