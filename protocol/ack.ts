// The operator acknowledgement of a commit: it binds the RNG index and the reveal deadline.
import { jcsSha256Hex } from './jcs.ts';
import { ackMessage, revealMessageOf, signText, verifyTextSignature } from './signatures.ts';
import type { Hex32 } from './hex32.ts';

export interface AckBody {
  betPayloadHash: string;
  betNonce: number;
  rngIndex: number;
  rngChainHead: string;
  committedAt: string;
  revealDeadline: string;
}

export interface Ack extends AckBody {
  ackHash: Hex32;
  operatorSignature: string;
  revealMessage: string;
}

export function ackBodyOf(ack: AckBody): AckBody {
  const { betPayloadHash, betNonce, rngIndex, rngChainHead, committedAt, revealDeadline } = ack;
  return { betPayloadHash, betNonce, rngIndex, rngChainHead, committedAt, revealDeadline };
}

/** ackHash = sha256(JCS(body)); the ack key signs "pfws:v1:ack:<ackHash>". */
export function signAck(body: AckBody, ackKeySeed: Uint8Array): Ack {
  const clean = ackBodyOf(body);
  const ackHash = jcsSha256Hex(clean);
  return Object.assign(clean, {
    ackHash,
    operatorSignature: signText(ackMessage(ackHash), ackKeySeed),
    revealMessage: revealMessageOf(clean.betPayloadHash, ackHash),
  });
}

export type AckCheck = { ok: true } | { ok: false; reason: string };

export function verifyAck(ack: Ack, ackPublicKey: string): AckCheck {
  const ackHash = jcsSha256Hex(ackBodyOf(ack));
  if (ackHash !== ack.ackHash) return { ok: false, reason: 'ackHash does not match the ack body' };
  if (ack.revealMessage !== revealMessageOf(ack.betPayloadHash, ackHash)) {
    return { ok: false, reason: 'revealMessage does not match the ack' };
  }
  if (!verifyTextSignature(ack.operatorSignature, ackMessage(ackHash), ackPublicKey)) {
    return { ok: false, reason: 'operator signature on the ack does not verify' };
  }
  return { ok: true };
}
