/**
 * Checks of one committed bet as every game records it (a dice bet, or one Sweeper turn): the signed
 * payload, the session-key signatures, the operator ack, the client-seed commitment and the RNG reveal.
 * @module
 */
import { verifyAck, type Ack } from '../ack.ts';
import { betPayloadHashOf, PROTOCOL_ID, type BetPayload } from '../bet-payload.ts';
import { verifyCommitment } from '../commitment.ts';
import { utf8 } from '../encoding.ts';
import { verifyBase64Signature, verifySessionSignature } from '../signatures.ts';
import type { Checks } from './report.ts';
import type { RngAnchors } from './rng.ts';

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

export interface TurnContext {
  ackPublicKey: string;
  rng: RngAnchors;
}

/** What the checks established, for the game's own checks. */
export interface TurnFacts {
  payload: BetPayload;
  hash: string;
  ack: Ack;
  /** The client seed, or null when none was revealed (settled as a loss at the deadline). */
  seed: string | null;
  rngReveal: string | null;
}

export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const ACK_FIELDS = ['betPayloadHash', 'rngChainHead', 'committedAt', 'revealDeadline', 'ackHash', 'operatorSignature', 'revealMessage'] as const;

function ackShape(ack: unknown): ack is Ack {
  if (!isRecord(ack)) return false;
  for (const k of ACK_FIELDS) if (typeof ack[k] !== 'string') return false;
  return Number.isSafeInteger(ack.betNonce) && Number.isSafeInteger(ack.rngIndex);
}

/**
 * Runs the per-bet checks, named `<prefix><check>`. Returns null when the material is too malformed to
 * go on (a failure is recorded).
 * @param settledAt when the bet was settled, to check that a forfeit waited for the reveal deadline
 */
export function checkTurn(turn: TurnProof, ctx: TurnContext, checks: Checks, prefix: string, settledAt: unknown): TurnFacts | null {
  const name = (n: string) => `${prefix}${n}`;
  const { betPayload, betPayloadHash, ack } = turn;
  if (!isRecord(betPayload) || typeof betPayloadHash !== 'string') {
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
  checks.add(
    name('session-signature'),
    typeof payload.sessionPubkey === 'string' && verifySessionSignature(betPayloadHash, turn.commitSignature, payload.sessionPubkey),
    "the commit signature is not the session key's Ed25519 signature over the 32 bytes of betPayloadHash",
  );
  if (!ackShape(ack)) {
    checks.fail(name('ack-signature'), 'the operator ack is missing or malformed');
    return null;
  }
  checks.add(name('ack-signature'), verifyAck(ack, ctx.ackPublicKey));
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
  if (seed !== null) {
    checks.add(name('commitment'), verifyCommitment(seed, String(payload.commitment)), 'sha256(clientSeedRaw) does not equal the committed commitment');
  } else {
    checks.skip(name('commitment'), 'no client seed was revealed');
  }
  if (typeof turn.revealSignature === 'string') {
    checks.add(
      name('reveal-signature'),
      verifyBase64Signature(turn.revealSignature, utf8(ack.revealMessage), payload.sessionPubkey),
      "the reveal signature is not the session key's signature over ack.revealMessage",
    );
  } else {
    checks.skip(name('reveal-signature'), seed ? 'the seed came from the recovery store or a wallet reveal memo' : 'no reveal');
  }
  if (rngReveal !== null) {
    checks.add(name('rng-reveal'), ctx.rng.link(ack.rngChainHead, ack.rngIndex, rngReveal));
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
  return { payload, hash: betPayloadHash, ack, seed, rngReveal };
}
