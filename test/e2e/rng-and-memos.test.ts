// The operator RNG chain rolls over to a chain committed on-chain beforehand, and a wallet's own reveal
// memo settles its bet without the API.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
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
import { settleDueBets } from '../../games/deadlines.ts';
import { hex32 } from '../../protocol/hex32.ts';

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
      await ensureRngChains(svc.wiring.worker!.rngHeads);
    }
    expect(heads.size).toBe(2);
    const second = [...heads].find((h) => h !== first)!;
    // Both heads are on-chain in memos signed by the anchor key alone.
    const rpc = createSolanaRpc(svc.rpcUrl);
    const anchor = svc.wiring.operator.anchor.publicKey;
    const memos = await rpc.getSignaturesForAddress(address(anchor)).send();
    const committed = memos
      .map((m) => /pfws:v1:rng-head:\d+:[0-9a-f]{64}/.exec(m.memo ?? '')?.[0])
      .filter(Boolean)
      .map((m) => parseMemo(m!));
    expect(committed.map((m) => (m as { headHex: string }).headHex)).toEqual(expect.arrayContaining([first, second]));
  });
});

/** Posts `pfws:v1:reveal:<hash>:<seed>`, signed by the wallet alone, straight to the chain. */
async function sendRevealMemo(service: TestService, player: Player, betPayloadHash: string, clientSeedRaw: string): Promise<void> {
  const rpc = createSolanaRpc(service.rpcUrl);
  const { value: blockhash } = await rpc.getLatestBlockhash().send();
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(player.signer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(blockhash, m),
    (m) => appendTransactionMessageInstructions([memoInstruction(`pfws:v1:reveal:${betPayloadHash}:${clientSeedRaw}`, [player.signer])], m),
  );
  const signed = await signTransactionMessageWithSigners(message);
  await rpc.sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: 'base64' }).send();
}

async function receiptOf(service: TestService, betPayloadHash: string, poll: () => Promise<unknown> = async () => {}, tries = 200): Promise<any> {
  for (let i = 0; i < tries; i++) {
    await poll();
    const res = await http('GET', `${service.api}/receipts/dice_${betPayloadHash.slice(0, 32)}`);
    if (res.status === 200) return res.body.receipt;
    await new Promise((r) => setTimeout(r, 50));
  }
  return null;
}

/** A committed bet, its reveal memo on-chain, and the wallet no longer in the indexer's recently-active set. */
async function betRevealedOnChainOnly(service: TestService) {
  const player = await new Player(service.api, service.rpcUrl).onboard(20);
  const p = await player.prepareDice({ wager: 1, target: 60 });
  expect((await player.commitDice(p.res.body)).status).toBe(200);
  await service.wiring.redis.zrem(service.wiring.keys.watchedWallets(), player.address);
  await sendRevealMemo(service, player, p.res.body.betPayloadHash, p.clientSeedRaw);
  return { player, betPayloadHash: hex32(p.res.body.betPayloadHash), clientSeedRaw: p.clientSeedRaw };
}

describe('wallet reveal memo', () => {
  it('a pfws:v1:reveal memo signed by the wallet settles its committed bet', async () => {
    const player = await new Player(svc.api, svc.rpcUrl).onboard(20);
    const p = await player.prepareDice({ wager: 1, target: 60 });
    const c = await player.commitDice(p.res.body);
    expect(c.status).toBe(200);
    await sendRevealMemo(svc, player, p.res.body.betPayloadHash, p.clientSeedRaw);
    const receipt = await receiptOf(svc, p.res.body.betPayloadHash, () => player.post('/protocol/v1/player/sync'));
    expect(receipt).not.toBeNull();
    expect(receipt.proof.revealedVia).toBe('wallet-memo');
    expect(receipt.input.clientSeedRaw).toBe(p.clientSeedRaw);
    expect(['won', 'lost']).toContain(receipt.status);
    expect((await player.get('/protocol/v1/dice/session')).body.pendingBet).toBeNull();
  });

  it('at the deadline, a memo nobody synced still settles the bet with its seed, never as a forfeit', async () => {
    // This service's indexer is idle; only the deadline pass can find the memo.
    const { betPayloadHash, clientSeedRaw } = await betRevealedOnChainOnly(svc);
    svc.clock.offsetMs = 24 * 3_600_000 + 1_000;
    try {
      const receipt = await receiptOf(svc, betPayloadHash);
      expect(receipt.proof.revealedVia).toBe('wallet-memo');
      expect(receipt.input.clientSeedRaw).toBe(clientSeedRaw);
      expect(['won', 'lost']).toContain(receipt.status);
    } finally {
      svc.clock.offsetMs = 0;
    }
  });
});

describe('wallet reveal memo, chain unreadable at the deadline', () => {
  it('a bet whose wallet cannot be read is not settled without its seed; the next pass settles it with the memo', async () => {
    const { betPayloadHash, clientSeedRaw } = await betRevealedOnChainOnly(svc);
    // This pass alone runs a day ahead; the service's own worker still sees the bet as not due.
    const later = () => new Date(Date.now() + 24 * 3_600_000 + 1_000);
    const deadlines = svc.wiring.worker!.deadlines;
    const blind = { ...deadlines, clock: later, tail: { ...deadlines.tail, rpc: createSolanaRpc('http://127.0.0.1:1') } };
    await settleDueBets(blind);
    expect((await svc.wiring.stores.bets.bet(betPayloadHash))?.state).toBe('committed');
    expect(await settleDueBets({ ...deadlines, clock: later })).toBeGreaterThanOrEqual(1);
    const receipt = await receiptOf(svc, betPayloadHash);
    expect(receipt.proof.revealedVia).toBe('wallet-memo');
    expect(receipt.input.clientSeedRaw).toBe(clientSeedRaw);
  });
});

describe('wallet reveal memo, indexer', () => {
  let fast: TestService;
  beforeAll(async () => {
    fast = await startTestService({ INDEXER_POLL_MS: '100' });
  });
  afterAll(async () => fast?.cleanup());

  it('follows the wallets of bets left waiting, so their reveal memos settle long before the deadline', async () => {
    const { player, betPayloadHash, clientSeedRaw } = await betRevealedOnChainOnly(fast);
    // Still within the grace a reveal through the API gets: the indexer makes its wallet passes (one in five
    // of its passes) and reads nothing of the memo yet.
    const passes = fast.indexer!.progress.passes;
    await vi.waitFor(() => expect(fast.indexer!.progress.passes).toBeGreaterThanOrEqual(passes + 11), { timeout: 20_000, interval: 20 });
    expect((await player.get('/protocol/v1/dice/session')).body.pendingBet?.status).toBe('awaiting_reveal');
    fast.clock.offsetMs = 60_000;
    try {
      const receipt = await receiptOf(fast, betPayloadHash);
      expect(receipt.proof.revealedVia).toBe('wallet-memo');
      expect(receipt.input.clientSeedRaw).toBe(clientSeedRaw);
    } finally {
      fast.clock.offsetMs = 0;
    }
  });
});
