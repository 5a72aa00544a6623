// confirmSignature with `resend`: the same bytes again while unseen, and a definite end once their blockhash expires.
import { generateKeyPairSigner } from '@solana/kit';
import { afterEach, describe, expect, it } from 'vitest';
import { BlockhashExpiredError, confirmSignature } from '../../chain/send.ts';
import { buildTx, fundedSigner, memoIx, startTestNet, type TestNet } from '../localnet/helpers.ts';

let net: TestNet | null = null;
afterEach(async () => {
  await net?.dispose();
  net = null;
});

describe('confirmSignature with resend', () => {
  it('sends the bytes again while the signature is unseen, so a dropped send still lands', async () => {
    net = await startTestNet();
    const payer = await fundedSigner(net.rpc, 1n);
    const lifetime = (await net.rpc.getLatestBlockhash().send()).value;
    // Signed, never sent: as if the RPC node had dropped it.
    const tx = await buildTx(net.rpc, payer, [memoIx('dropped once')], { lifetime });
    const { slot } = await confirmSignature(net.rpc, tx.signature, {
      timeoutMs: 5_000,
      pollMs: 20,
      resend: { wire: tx.wire, lastValidBlockHeight: lifetime.lastValidBlockHeight, everyMs: 50 },
    });
    expect(slot).toBeGreaterThanOrEqual(0n);
    const { value } = await net.rpc.getSignatureStatuses([tx.signature]).send();
    expect(value[0]?.err).toBeNull();
  });

  it('ends with BlockhashExpiredError once the chain is past the last valid height and never saw it', async () => {
    net = await startTestNet({ slotIntervalMs: 5 });
    // No lamports: every send is refused, so the bytes can never land.
    const broke = await generateKeyPairSigner();
    const lifetime = (await net.rpc.getLatestBlockhash().send()).value;
    const tx = await buildTx(net.rpc, broke, [memoIx('never lands')], { lifetime });
    const refused: unknown[] = [];
    await expect(
      confirmSignature(net.rpc, tx.signature, {
        timeoutMs: 20_000,
        pollMs: 20,
        resend: { wire: tx.wire, lastValidBlockHeight: lifetime.lastValidBlockHeight, everyMs: 50, onError: (err) => refused.push(err) },
      }),
    ).rejects.toBeInstanceOf(BlockhashExpiredError);
    expect(await net.rpc.getBlockHeight().send()).toBeGreaterThan(lifetime.lastValidBlockHeight);
    expect(refused.length).toBeGreaterThan(0);
  });
});
