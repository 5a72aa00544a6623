/**
 * Verifies one receipt from public data alone: the game's own checks (signatures, commitment, RNG
 * reveal, outcome, payout, bet-log entry), then the entry's inclusion under a root committed on-chain.
 * Games register a checker here; each checks its bets through `checkTurn`.
 * @module
 */
import { Checks, type Report } from './report.ts';
import { isRecord, type TurnContext } from './turn.ts';
import { checkAnchor, type AnchorContext } from './anchor.ts';
import { checkDiceReceipt, type GameCheck } from './dice.ts';
import { checkSweeperReceipt } from './sweeper.ts';
import type { RngUse } from './entry.ts';

export interface ReceiptContext extends TurnContext, AnchorContext {}

export interface ReceiptReport extends Report {
  /** RNG indices the receipt's bets consumed (for the once-only check across receipts). */
  rngUses: RngUse[];
}

type GameChecker = (receipt: Record<string, unknown>, ctx: TurnContext, checks: Checks) => GameCheck;

const GAMES: Record<string, GameChecker> = {
  dice: checkDiceReceipt,
  sweeper: checkSweeperReceipt,
};

/**
 * Runs every check on an untrusted receipt; never throws.
 * @example verifyReceipt(receipt, { ackPublicKey, operatorPublicKey, rng, commitTx }).ok
 */
export function verifyReceipt(receipt: unknown, ctx: ReceiptContext): ReceiptReport {
  const checks = new Checks();
  if (!isRecord(receipt)) {
    checks.fail('receipt', 'the receipt is not an object');
    return { ...checks.report('receipt ?'), rngUses: [] };
  }
  const subject = `receipt ${typeof receipt.id === 'string' ? receipt.id : '?'}`;
  const checker = typeof receipt.game === 'string' && Object.hasOwn(GAMES, receipt.game) ? GAMES[receipt.game] : undefined;
  if (!checker) {
    checks.fail('game', `unsupported game ${JSON.stringify(receipt.game)}`);
    return { ...checks.report(subject), rngUses: [] };
  }
  let game: GameCheck;
  try {
    game = checker(receipt, ctx, checks);
  } catch (err) {
    // A checker bug or a shape no check anticipated must still give a verdict, never a crash.
    checks.fail('receipt', `the receipt could not be checked: ${(err as Error).message}`);
    return { ...checks.report(subject), rngUses: [] };
  }
  if (game.leafHex === null) checks.fail('entry-hash', 'the bet-log entry has no canonical JSON form');
  else checkAnchor(receipt.anchor, game.leafHex, ctx, checks);
  return { ...checks.report(subject), rngUses: game.rngUses };
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
