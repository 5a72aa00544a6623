/**
 * Checks of one committed bet as every game records it (a dice bet, or one Sweeper turn): the signed
 * payload, the session-key signatures, the operator ack, the client-seed commitment. They cost CPU
 * only; what needs chain state (the RNG link, the key's on-chain authorization) is returned as a
 * request and checked later, and only once the ack signature has bound the RNG index.
 * @module
 */
import { verifyAck, type Ack } from '../ack.ts';
import { betPayloadHashOf, PROTOCOL_ID, type BetPayload } from '../bet-payload.ts';
import { verifyCommitment } from '../commitment.ts';
import { isHex } from '../encoding.ts';
import { verifySessionSignature, verifyTextSignature } from '../signatures.ts';
import type { CheckName, TurnCheckName, TurnPrefix } from './check-names.ts';
import type { Checks } from './report.ts';
import { isBoundedInt, isField, MAX_RNG_INDEX } from './bounds.ts';

/** The per-bet proof material in a receipt's `verifierPayload`. */
export interface TurnProof {
  betPayload: unknown;
  betPayloadHash: unknown;
  commitSignature: unknown;
  ack: unknown;
  revealSignature: unknown;
  clientSeedRaw: unknown;
  rngReveal: unknown;
}

/** The ack key that signed at a time (from the pinned trust root), or the one published key. */
export type AckKey = string | ((committedAt: string) => string);

export interface TurnContext {
  ackPublicKey: AckKey;
}

/** A reveal to link to a chain head committed on-chain, under the check named `check`. */
export interface RngLinkRequest {
  check: CheckName;
  head: string;
  index: number;
  value: string;
}

/** A bet committed with a session key: the key must have been authorized on-chain before `committedAt`. */
export interface SessionKeyUse {
  check: CheckName;
  sessionPubkey: string;
  betPayloadHash: string;
  committedAt: string;
}

/** What the checks established, for the game's own checks. */
export interface TurnFacts {
  payload: BetPayload;
  hash: string;
  ack: Ack;
  /** The client seed, or null when none was revealed (settled as a loss at the deadline). */
  seed: string | null;
  rngReveal: string | null;
  revealSignature: string | null;
  /** Set when the reveal should be linked to the chain (the ack signature verified). */
  rngLink: RngLinkRequest | null;
  /** The RNG index the signed ack bound (each is used once); null when the ack does not verify. */
  rngUse: { head: string; index: number } | null;
  sessionKey: SessionKeyUse;
}

export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const ACK_FIELDS = ['betPayloadHash', 'rngChainHead', 'committedAt', 'revealDeadline', 'ackHash', 'operatorSignature', 'revealMessage'] as const;

function ackShape(ack: unknown): ack is Ack {
  if (!isRecord(ack)) return false;
  for (const k of ACK_FIELDS) if (!isField(ack[k])) return false;
  return isBoundedInt(ack.betNonce, 0, Number.MAX_SAFE_INTEGER) && isBoundedInt(ack.rngIndex, 0, MAX_RNG_INDEX);
}

const ackKeyAt = (key: AckKey, committedAt: string): string => (typeof key === 'string' ? key : key(committedAt));

/**
 * Runs the per-bet checks, named `<prefix><check>`. Returns null when the material is too malformed to
 * go on (a failure is recorded).
 * @param settledAt when the bet was settled, to check that a forfeit waited for the reveal deadline
 */
export function checkTurn(turn: TurnProof, ctx: TurnContext, checks: Checks, prefix: TurnPrefix, settledAt: unknown): TurnFacts | null {
  const name = (n: TurnCheckName): CheckName => `${prefix}${n}`;
  const { betPayload, betPayloadHash, ack } = turn;
  if (!isRecord(betPayload) || !isHex(betPayloadHash, 32)) {
    checks.fail(name('payload-hash'), 'betPayload or betPayloadHash is missing');
    return null;
  }
  const payload = betPayload as unknown as BetPayload;
  let recomputed: string | null = null;
  try {
    recomputed = betPayloadHashOf(payload);
  } catch {
    recomputed = null;
  }
  checks.add(name('payload-hash'), recomputed === betPayloadHash, 'betPayloadHash is not sha256 of the JCS of betPayload');
  checks.add(name('protocol'), payload.protocol === PROTOCOL_ID, `betPayload.protocol is not ${PROTOCOL_ID}`);
  const sessionPubkey = isField(payload.sessionPubkey) ? payload.sessionPubkey : '';
  checks.add(
    name('session-signature'),
    sessionPubkey !== '' && verifySessionSignature(betPayloadHash, turn.commitSignature, sessionPubkey),
    "the commit signature is not the session key's Ed25519 signature over the 32 bytes of betPayloadHash",
  );
  if (!ackShape(ack)) {
    checks.fail(name('ack-signature'), 'the operator ack is missing or malformed (or its rngIndex is out of bounds)');
    return null;
  }
  const ackCheck = verifyAck(ack, ackKeyAt(ctx.ackPublicKey, ack.committedAt));
  checks.add(name('ack-signature'), ackCheck);
  checks.add(
    name('ack-binding'),
    ack.betPayloadHash === betPayloadHash && ack.betNonce === payload.betNonce,
    "the ack does not name this bet's betPayloadHash and betNonce",
  );
  const committed = Date.parse(ack.committedAt);
  checks.add(
    name('commit-in-time'),
    Number.isFinite(committed) && committed <= Date.parse(String(payload.expiresAt)),
    'the bet was committed after its payload expired',
  );

  const seed = typeof turn.clientSeedRaw === 'string' ? turn.clientSeedRaw : null;
  const rngReveal = typeof turn.rngReveal === 'string' ? turn.rngReveal : null;
  const revealSignature = typeof turn.revealSignature === 'string' ? turn.revealSignature : null;
  if (seed !== null) {
    checks.add(
      name('commitment'),
      isHex(seed, 32) && verifyCommitment(seed, String(payload.commitment)),
      'sha256(clientSeedRaw) does not equal the committed commitment',
    );
  } else {
    checks.skip(name('commitment'), 'no client seed was revealed');
  }
  if (revealSignature !== null) {
    checks.add(
      name('reveal-signature'),
      verifyTextSignature(revealSignature, ack.revealMessage, sessionPubkey),
      "the reveal signature is not the session key's signature over ack.revealMessage",
    );
  } else {
    checks.skip(name('reveal-signature'), seed ? 'the seed came from the recovery store or a wallet reveal memo' : 'no reveal');
  }
  let rngLink: RngLinkRequest | null = null;
  if (rngReveal !== null) {
    // Only a signed ack binds the index: an unsigned one could name any index and force a long hash walk.
    if (!ackCheck.ok) checks.skip(name('rng-reveal'), 'not linked: the ack signature does not verify, so nothing binds the RNG index');
    else if (!isHex(rngReveal, 32) || !isHex(ack.rngChainHead, 32) || ack.rngIndex < 1)
      checks.fail(name('rng-reveal'), 'the RNG reveal, chain head or index is malformed');
    else rngLink = { check: name('rng-reveal'), head: ack.rngChainHead, index: ack.rngIndex, value: rngReveal };
  } else if (seed !== null) {
    checks.fail(name('rng-reveal'), 'a revealed bet lacks its RNG reveal');
  } else {
    checks.skip(name('rng-reveal'), 'no reveal: the bet settled as a loss at its deadline');
    const settled = Date.parse(String(settledAt));
    checks.add(
      name('forfeit-deadline'),
      Number.isFinite(settled) && settled >= Date.parse(ack.revealDeadline),
      'the bet was forfeited before its reveal deadline',
    );
  }
  return {
    payload,
    hash: betPayloadHash,
    ack,
    seed,
    rngReveal,
    revealSignature,
    rngLink,
    rngUse: ackCheck.ok ? { head: ack.rngChainHead, index: ack.rngIndex } : null,
    sessionKey: { check: name('session-key'), sessionPubkey, betPayloadHash, committedAt: ack.committedAt },
  };
}
