// The operator RNG chain rolls over to a chain committed on-chain beforehand, and a wallet's own reveal
// memo settles its bet without the API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  appendTransactionMessageInstructions,
  createSolanaRpc,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  address,
} from '@solana/kit';
import { startTestService, type TestService } from '../helpers/service.ts';
import { Player, http } from '../helpers/player.ts';
import { memoInstruction } from '../../chain/memo.ts';
import { ensureRngChains } from '../../anchor-worker/rng-heads.ts';
import { verifyRngLink } from '../../protocol/rng-chain.ts';
import { parseMemo } from '../../protocol/memo.ts';

let svc: TestService;
beforeAll(async () => {
  // The indexer polls rarely here, so the wallet reveal below must come through player/sync.
  svc = await startTestService({ RNG_CHAIN_LENGTH: '16', RNG_ROLLOVER_MARGIN: '5', INDEXER_POLL_MS: '60000' });
});
afterAll(async () => {
  await svc?.cleanup();
});

describe('RNG chain rollover', () => {
  it('commits the next head on-chain before the current chain runs out, then moves to it', async () => {
    const player = await new Player(svc.api, svc.rpcUrl).onboard(100);
    const first = (await http('GET', `${svc.api}/protocol/v1/config`)).body.rngChainHead as string;
    const heads = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const played = await player.playDice({ wager: 1 });
      heads.add(played.commit.ack.rngChainHead);
      expect(verifyRngLink(played.reveal.rngReveal, played.commit.ack.rngIndex, played.commit.ack.rngChainHead, 0)).toBe(true);
      await ensureRngChains(svc.services);
    }
    expect(heads.size).toBe(2);
    const second = [...heads].find((h) => h !== first)!;
    // Both heads are on-chain in memos signed by the anchor key alone.
    const rpc = createSolanaRpc(svc.rpcUrl);
    const anchor = svc.services.operator.anchor.publicKey;
    const memos = await rpc.getSignaturesForAddress(address(anchor)).send();
    const committed = memos.map((m) => /pfws:v1:rng-head:\d+:[0-9a-f]{64}/.exec(m.memo ?? '')?.[0]).filter(Boolean).map((m) => parseMemo(m!));
    expect(committed.map((m) => (m as { headHex: string }).headHex)).toEqual(expect.arrayContaining([first, second]));
  });
});

describe('wallet reveal memo', () => {
  it('a pfws:v1:reveal memo signed by the wallet settles its committed bet', async () => {
    const player = await new Player(svc.api, svc.rpcUrl).onboard(20);
    const p = await player.prepareDice({ wager: 1, target: 60 });
    const c = await player.commitDice(p.res.body);
    expect(c.status).toBe(200);
    const rpc = createSolanaRpc(svc.rpcUrl);
    const { value: blockhash } = await rpc.getLatestBlockhash().send();
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(player.signer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(blockhash, m),
      (m) => appendTransactionMessageInstructions([memoInstruction(`pfws:v1:reveal:${p.res.body.betPayloadHash}:${p.clientSeedRaw}`, [player.signer])], m),
    );
    const signed = await signTransactionMessageWithSigners(message);
    await rpc.sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: 'base64' }).send();
    const receiptId = `dice_${p.res.body.betPayloadHash.slice(0, 32)}`;
    let receipt: any = null;
    for (let i = 0; i < 100 && !receipt; i++) {
      await player.post('/protocol/v1/player/sync');
      const res = await http('GET', `${svc.api}/receipts/${receiptId}`);
      if (res.status === 200) receipt = res.body.receipt;
      else await new Promise((r) => setTimeout(r, 50));
    }
    expect(receipt).not.toBeNull();
    expect(receipt.proof.revealedVia).toBe('wallet-memo');
    expect(receipt.input.clientSeedRaw).toBe(p.clientSeedRaw);
    expect(['won', 'lost']).toContain(receipt.status);
    expect((await player.get('/protocol/v1/dice/session')).body.pendingBet).toBeNull();
  });
});
