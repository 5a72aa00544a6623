/**
 * Verifies one receipt from public data alone: the game's checks (signatures, commitment, the receipt
 * and its bet-log entry rebuilt from the verified inputs), the entry's inclusion under a root committed
 * on-chain, the RNG reveals against committed chain heads, and the session keys' on-chain authorization.
 *
 * It runs in two steps so that a bulk run can spread the CPU work over worker threads:
 * {@link inspectReceipt} needs only the receipt and the ack key; {@link completeReceipt} adds what needs
 * chain state. {@link verifyReceipt} does both.
 * @module
 */
import { Checks, type Check, type Report } from './report.ts';
import { isRecord, type AckKey, type RngLinkRequest, type SessionKeyUse } from './turn.ts';
import { checkAnchorOnChain, inspectAnchor, type AnchorClaim, type AnchorContext } from './anchor.ts';
import { checkDiceReceipt, type GameCheck } from './dice.ts';
import { checkSweeperReceipt } from './sweeper.ts';
import { checkSessionKey, type SessionKeyLookup } from './session-key.ts';
import type { VerifyResult } from '../merkle.ts';
import type { NodeMemo } from './proofs.ts';

/** Links RNG reveals to chain heads committed on-chain (RngAnchors does). */
export interface RngLinker {
  link(headHex: string, index: number, valueHex: string): VerifyResult;
}

export interface InspectContext {
  ackPublicKey: AckKey;
}

export interface ReceiptContext extends InspectContext, AnchorContext {
  rng: RngLinker;
  /** The on-chain authorization of a session key; unset skips the check (offline use). */
  sessionKey?(sessionPubkey: string): SessionKeyLookup | undefined;
}

/** One RNG index a bet consumed: indices are unique per chain. */
export interface RngUse {
  head: string;
  index: number;
}

/** The CPU part's findings: plain data, so a worker thread can hand it back. */
export interface ReceiptInspection {
  subject: string;
  receiptId: string | null;
  checks: Check[];
  /** Leaf of the entry rebuilt from the verified inputs; null when it could not be rebuilt. */
  leafHex: string | null;
  rngLinks: RngLinkRequest[];
  rngUses: RngUse[];
  sessionKeys: SessionKeyUse[];
  anchor: AnchorClaim | null;
}

export interface ReceiptReport extends Report {
  /** RNG indices the receipt's bets consumed (for the once-only check across receipts). */
  rngUses: RngUse[];
  /** Leaf of the rebuilt entry, to compare with the log. */
  leafHex: string | null;
}

type GameChecker = (receipt: Record<string, unknown>, ctx: InspectContext, checks: Checks) => GameCheck;

const GAMES: Record<string, GameChecker> = {
  dice: checkDiceReceipt,
  sweeper: checkSweeperReceipt,
};

/**
 * Every check that needs the receipt alone; never throws.
 * @param options.bulk in a bulk run the log itself proves inclusion, so an anchor not filled yet is no gap
 * @param options.memo Merkle nodes shared by the inclusion proofs of a bulk run's neighbouring receipts
 */
export function inspectReceipt(receipt: unknown, ctx: InspectContext, options: { bulk?: boolean; memo?: NodeMemo } = {}): ReceiptInspection {
  const checks = new Checks();
  const empty = { leafHex: null, rngLinks: [], rngUses: [], sessionKeys: [], anchor: null };
  if (!isRecord(receipt)) {
    checks.fail('receipt', 'the receipt is not an object');
    return { subject: 'receipt ?', receiptId: null, checks: checks.list, ...empty };
  }
  const receiptId = typeof receipt.id === 'string' ? receipt.id.slice(0, 128) : null;
  const subject = `receipt ${receiptId ?? '?'}`;
  const checker = typeof receipt.game === 'string' && Object.hasOwn(GAMES, receipt.game) ? GAMES[receipt.game] : undefined;
  if (!checker) {
    checks.fail('game', `unsupported game ${JSON.stringify(String(receipt.game).slice(0, 32))}`);
    return { subject, receiptId, checks: checks.list, ...empty };
  }
  let game: GameCheck;
  try {
    game = checker(receipt, ctx, checks);
  } catch (err) {
    // A checker bug or a shape no check anticipated must still give a verdict, never a crash.
    checks.fail('receipt', `the receipt could not be checked: ${(err as Error).message}`);
    return { subject, receiptId, checks: checks.list, ...empty };
  }
  let anchor: AnchorClaim | null = null;
  if (game.leafHex === null) checks.fail('entry-hash', 'the bet-log entry could not be rebuilt from the verified bet');
  else anchor = inspectAnchor(receipt.anchor, game.leafHex, checks, options.bulk ? 'skip' : 'error', options.memo);
  return {
    subject,
    receiptId,
    checks: checks.list,
    leafHex: game.leafHex,
    rngLinks: game.rngLinks,
    rngUses: game.rngUses,
    sessionKeys: game.sessionKeys,
    anchor,
  };
}

/** The checks that need chain state: RNG links, the anchor's commit memo, the session keys. */
export function chainChecks(inspection: ReceiptInspection, ctx: Omit<ReceiptContext, 'ackPublicKey'>): Check[] {
  const checks = new Checks();
  for (const l of inspection.rngLinks) checks.add(l.check, ctx.rng.link(l.head, l.index, l.value));
  if (inspection.anchor) checkAnchorOnChain(inspection.anchor, ctx, checks);
  for (const use of inspection.sessionKeys) checkSessionKey(use, ctx.sessionKey?.(use.sessionPubkey), checks);
  return checks.list;
}

/** The inspection's checks followed by its {@link chainChecks}, as one report. */
export function completeReceipt(inspection: ReceiptInspection, ctx: Omit<ReceiptContext, 'ackPublicKey'>): ReceiptReport {
  return receiptReport(inspection, chainChecks(inspection, ctx));
}

export function receiptReport(inspection: ReceiptInspection, chain: readonly Check[]): ReceiptReport {
  const checks = new Checks();
  checks.list.push(...inspection.checks, ...chain);
  return Object.assign(checks.report(inspection.subject), { rngUses: inspection.rngUses, leafHex: inspection.leafHex });
}

/**
 * Runs every check on an untrusted receipt; never throws.
 * @example verifyReceipt(receipt, { ackPublicKey, operatorPublicKey, rng, commitTx }).ok
 */
export function verifyReceipt(receipt: unknown, ctx: ReceiptContext): ReceiptReport {
  return completeReceipt(inspectReceipt(receipt, ctx), ctx);
}

/** Records every RNG index use, and reports the ones already used by another receipt. */
export class RngIndexRegistry {
  readonly #used = new Map<string, string>();

  /** @returns a reason per index that some other receipt had already used */
  claim(receiptId: string, uses: readonly RngUse[]): string[] {
    const clashes: string[] = [];
    const own = new Set<string>();
    for (const { head, index } of uses) {
      const key = `${head}:${index}`;
      const owner = this.#used.get(key);
      const where = `rng index ${index} of chain ${head.slice(0, 12)}…`;
      if (own.has(key)) clashes.push(`${where} is used twice in ${receiptId}`);
      else if (owner !== undefined && owner !== receiptId) clashes.push(`${where} is also used by ${owner}`);
      else this.#used.set(key, receiptId);
      own.add(key);
    }
    return clashes;
  }

  /** The receipt that used an index, if any. */
  owner(head: string, index: number): string | undefined {
    return this.#used.get(`${head}:${index}`);
  }
}
