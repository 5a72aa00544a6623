// The Dice receipt checker: the committed bet verified, then the receipt and its bet-log entry rebuilt
// from the bet's verifiable inputs through protocol/dice-receipt.ts and compared field by field.
import { buildDiceSettlement } from '../dice-receipt.ts';
import type { DiceBetPayload } from '../bet-payload.ts';
import { DICE_GAME_ID, type PlaySource, type RevealedVia } from '../receipt.ts';
import type { Checks } from './report.ts';
import { checkTurn, isRecord, type RngLinkRequest, type SessionKeyUse, type TurnContext, type TurnFacts } from './turn.ts';
import { compareRebuilt } from './rebuild.ts';

export { DICE_GAME_ID };

/** What a game checker established, for the anchor, RNG and session-key checks. */
export interface GameCheck {
  /** Leaf hash of the bet-log entry rebuilt from the verified inputs; null when it could not be rebuilt. */
  leafHex: string | null;
  rngLinks: RngLinkRequest[];
  /** Every RNG index a signed ack bound, revealed or not. */
  rngUses: { head: string; index: number }[];
  sessionKeys: SessionKeyUse[];
}

const SOURCES: readonly string[] = ['api', 'mcp'];
const VIAS: readonly string[] = ['reveal', 'recovery', 'wallet-memo'];

/**
 * How the seed became known, as the receipt says, checked against the proof material: a reveal carries
 * the session key's reveal signature, recovery and wallet memos carry none, a deadline has no seed.
 * @returns the reveal for the rebuild, or a reason it is inconsistent
 */
export function revealOf(
  facts: Pick<TurnFacts, 'seed' | 'revealSignature'>,
  via: unknown,
): { ok: true; via: RevealedVia | 'deadline' } | { ok: false; reason: string } {
  if (facts.seed === null)
    return via === 'deadline' ? { ok: true, via } : { ok: false, reason: `revealedVia is ${JSON.stringify(via)} for a bet with no seed` };
  if (facts.revealSignature !== null)
    return via === 'reveal' ? { ok: true, via } : { ok: false, reason: `revealedVia is ${JSON.stringify(via)}, but the player's reveal signature is there` };
  return typeof via === 'string' && VIAS.includes(via) && via !== 'reveal'
    ? { ok: true, via: via as RevealedVia }
    : { ok: false, reason: `revealedVia is ${JSON.stringify(via)} for a seed without a reveal signature` };
}

/** The receipt's source: server metadata, one of two values, never verifiable beyond that. */
export const sourceOf = (receipt: Record<string, unknown>): PlaySource | null =>
  typeof receipt.source === 'string' && SOURCES.includes(receipt.source) ? (receipt.source as PlaySource) : null;

/** Checks a Dice receipt's game part; the caller checks the anchor, the RNG link and the session key. */
export function checkDiceReceipt(receipt: Record<string, unknown>, ctx: TurnContext, checks: Checks): GameCheck {
  const none: GameCheck = { leafHex: null, rngLinks: [], rngUses: [], sessionKeys: [] };
  const vp = receipt.verifierPayload;
  if (!isRecord(vp)) {
    checks.fail('verifier-payload', 'the receipt has no verifierPayload');
    return none;
  }
  const entry = isRecord(vp.betLogEntry) ? vp.betLogEntry : null;
  checks.add('game', receipt.gameId === DICE_GAME_ID && isRecord(vp.betPayload) && vp.betPayload.game === 'dice', 'not a Protocol V1 dice bet');
  const facts = checkTurn(
    {
      betPayload: vp.betPayload,
      betPayloadHash: vp.betPayloadHash,
      commitSignature: vp.commitSignature,
      ack: vp.ack,
      revealSignature: vp.revealSignature,
      clientSeedRaw: vp.clientSeedRaw,
      rngReveal: vp.rngReveal,
    },
    ctx,
    checks,
    '',
    entry?.settledAt,
  );
  if (!facts) return none;
  const found: GameCheck = {
    leafHex: null,
    rngLinks: facts.rngLink ? [facts.rngLink] : [],
    rngUses: facts.rngUse ? [facts.rngUse] : [],
    sessionKeys: [facts.sessionKey],
  };
  const proof = isRecord(receipt.proof) ? receipt.proof : {};
  const reveal = revealOf(facts, proof.revealedVia);
  const source = sourceOf(receipt);
  const settledAt = entry?.settledAt;
  if (!reveal.ok || !source || typeof settledAt !== 'string') {
    checks.fail('receipt-fields', !reveal.ok ? reveal.reason : !source ? 'source is neither api nor mcp' : 'the bet-log entry has no settledAt');
    return found;
  }
  let rebuilt: ReturnType<typeof buildDiceSettlement>;
  try {
    rebuilt = buildDiceSettlement({
      betPayload: facts.payload as DiceBetPayload,
      betPayloadHash: facts.hash,
      commitSignature: String(vp.commitSignature),
      ack: facts.ack,
      reveal: reveal.via === 'deadline' ? null : { clientSeedRaw: facts.seed as string, revealSignature: facts.revealSignature, via: reveal.via },
      rngReveal: facts.rngReveal,
      settledAt,
      source,
    });
  } catch (err) {
    checks.fail('outcome', `the outcome cannot be recomputed: ${(err as Error).message}`);
    return found;
  }
  compareRebuilt(checks, receipt, rebuilt.receipt as unknown as Record<string, unknown>);
  return Object.assign(found, { leafHex: rebuilt.betLogEntryHash });
}
