// A receipt of the frozen v1 fixture rebuilt from its verifiable inputs, through the builders the service writes with.
import { buildDiceSettlement } from '../../protocol/dice-receipt.ts';
import type { RevealedVia } from '../../protocol/receipt.ts';
import { buildSweeperSettlement } from '../../protocol/sweeper-receipt.ts';

type Json = any;

export function rebuildReceipt(receipt: Json) {
  const vp = receipt.verifierPayload;
  if (receipt.game === 'dice') {
    const via = receipt.proof.revealedVia as RevealedVia | 'deadline';
    return buildDiceSettlement({
      betPayload: vp.betPayload,
      betPayloadHash: vp.betPayloadHash,
      commitSignature: vp.commitSignature,
      ack: vp.ack,
      reveal: via === 'deadline' ? null : { clientSeedRaw: vp.clientSeedRaw, revealSignature: vp.revealSignature, via },
      rngReveal: vp.rngReveal,
      settledAt: vp.betLogEntry.settledAt,
      source: receipt.source,
    });
  }
  return buildSweeperSettlement({
    ticketId: vp.ticketId,
    mode: vp.mode,
    wager: BigInt(vp.wagerMicro),
    player: vp.turns[0].betPayload.player,
    source: receipt.source,
    turns: vp.turns,
    settledAt: vp.betLogEntry.settledAt,
  });
}
