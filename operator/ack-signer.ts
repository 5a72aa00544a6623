// The operator's ack signer, remembering the acks it signed lately: a bet's ack is signed at its commit and needed again
// at its reveal (to check the reveal signature and to go in the receipt), often in the same API process. Ed25519 is
// deterministic, so a remembered ack is byte for byte the one a fresh signature would give.
import { ackBodyOf, signAck, type Ack, type AckBody } from '../protocol/ack.ts';

/** Acks remembered per process: a commit's reveal follows within seconds, so this covers thousands of bets in flight. */
const REMEMBERED = 4096;

export function rememberingAckSigner(ackKeySeed: Uint8Array, limit = REMEMBERED): (body: AckBody) => Ack {
  const recent = new Map<string, Ack>();
  return (body) => {
    const clean = ackBodyOf(body);
    // JSON keeps types apart (5 and "5" hash differently under JCS, so they must not share an entry).
    const key = JSON.stringify([clean.betPayloadHash, clean.betNonce, clean.rngIndex, clean.rngChainHead, clean.committedAt, clean.revealDeadline]);
    let ack = recent.get(key);
    if (!ack) {
      ack = signAck(clean, ackKeySeed);
      if (recent.size >= limit) recent.delete(recent.keys().next().value as string);
      recent.set(key, ack);
    }
    return { ...ack };
  };
}
