// A process restart keeps the chain (localnet snapshot and history) and the ledger, and play goes on.
import { afterAll, describe, expect, it } from 'vitest';
import { address, createSolanaRpc } from '@solana/kit';
import { startTestService, type TestService } from '../helpers/service.ts';
import { Player, http } from '../helpers/player.ts';

let svc: TestService;
afterAll(async () => {
  await svc?.cleanup();
});

describe('restart', () => {
  it('keeps balances, history, keys and the RNG cursor', async () => {
    svc = await startTestService();
    const player = await new Player(svc.api, svc.rpcUrl).onboard(30);
    const first = await player.playDice({ wager: 1 });
    const before = (await player.get('/protocol/v1/player/status')).body;
    const rpc = createSolanaRpc(svc.rpcUrl);
    const history = await rpc.getSignaturesForAddress(address(player.address)).send();
    const sol = await rpc.getBalance(address(player.address)).send();
    const config = (await http('GET', `${svc.api}/protocol/v1/config`)).body;

    svc = await svc.restart();
    const again = new Player(svc.api, svc.rpcUrl);
    Object.assign(again, { wallet: player.wallet, session: player.session });
    await again.init();
    await again.login();
    expect((await again.get('/protocol/v1/player/status')).body).toEqual(before);
    const rpc2 = createSolanaRpc(svc.rpcUrl);
    expect((await rpc2.getSignaturesForAddress(address(player.address)).send()).map((h) => h.signature)).toEqual(history.map((h) => h.signature));
    expect((await rpc2.getBalance(address(player.address)).send()).value).toBe(sol.value);
    const tx = await rpc2.getTransaction(history[0]!.signature, { encoding: 'jsonParsed', maxSupportedTransactionVersion: 0 }).send();
    expect(tx?.meta?.err).toBeNull();
    const config2 = (await http('GET', `${svc.api}/protocol/v1/config`)).body;
    expect(config2).toEqual({ ...config, rpcUrl: config2.rpcUrl });
    expect((await http('GET', `${svc.api}/receipts/${first.reveal.receiptId}`)).status).toBe(200);

    const second = await again.playDice({ wager: 1 });
    expect(second.commit.ack.rngIndex).toBeGreaterThan(first.commit.ack.rngIndex);
    expect(second.commit.ack.rngChainHead).toBe(first.commit.ack.rngChainHead);
  });

  it("refuses to start on a Redis prefix that holds another chain's ledger", async () => {
    const prefix = svc.env.REDIS_PREFIX!;
    await expect(startTestService({}, undefined, prefix)).rejects.toThrow(/holds the ledger of another chain/);
  });
});
