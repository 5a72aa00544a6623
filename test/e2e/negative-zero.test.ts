// `-0` is no amount (issue 16): every route family that takes a wager, an amount or shares refuses it with the
// code it gives any other non-positive value, even setup-transaction, whose amount may be 0.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Player } from '../helpers/player.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

let svc: TestService;
let player: Player;

beforeAll(async () => {
  svc = await startTestService();
  player = await new Player(svc.api, svc.rpcUrl).onboard(20);
});
afterAll(async () => svc?.cleanup());

/** JSON.stringify(-0) is "0": the body is written by hand to carry a real `-0`. */
async function rawPost(path: string, json: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${svc.api}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${player.token}`, ...headers },
    body: json,
  });
  return { status: res.status, code: ((await res.json()) as { error?: { code?: string } }).error?.code };
}

describe('-0 as an amount', () => {
  it.each([
    ['setup-transaction amount', '/protocol/v1/player/setup-transaction', (key: string) => `{"amount":-0,"sessionPubkey":"${key}"}`, 'INVALID_BET_AMOUNT'],
    [
      'setup-transaction amount -0.0',
      '/protocol/v1/player/setup-transaction',
      (key: string) => `{"amount":-0.0,"sessionPubkey":"${key}"}`,
      'INVALID_BET_AMOUNT',
    ],
    [
      'setup-transaction amount "-0"',
      '/protocol/v1/player/setup-transaction',
      (key: string) => `{"amount":"-0","sessionPubkey":"${key}"}`,
      'INVALID_BET_AMOUNT',
    ],
    ['x402-deposit amount', '/protocol/v1/player/x402-deposit', () => '{"amount":-0}', 'INVALID_BET_AMOUNT'],
    ['withdraw amount', '/protocol/v1/player/withdraw', () => '{"amount":-0}', 'INVALID_BET_AMOUNT'],
    ['lp-deposit amount', '/protocol/v1/house/lp-deposit-transaction', () => '{"amount":-0}', 'INVALID_BET_AMOUNT'],
    ['lp-redeem shares', '/protocol/v1/house/lp-redeem-transaction', () => '{"shares":-0}', 'INVALID_REQUEST'],
    ['sweeper ticket wager', '/protocol/v1/sweeper/ticket', (key: string) => `{"mode":"easy","sessionPubkey":"${key}","wager":-0}`, 'INVALID_BET_AMOUNT'],
  ])('%s is refused', async (_name, path, body, code) => {
    const res = await rawPost(path, body(player.session.publicKey), path.endsWith('/withdraw') ? { 'idempotency-key': `nz-${Date.now()}` } : {});
    expect(res).toEqual({ status: 400, code });
  });

  it('dice prepare wager is refused', async () => {
    const { commitment } = player.newSeed();
    const res = await rawPost(
      '/protocol/v1/dice/prepare',
      `{"commitment":"${commitment}","sessionPubkey":"${player.session.publicKey}","direction":"under","target":50,"wager":-0}`,
    );
    expect(res).toEqual({ status: 400, code: 'INVALID_BET_AMOUNT' });
  });

  it('a setup transaction with amount 0 is still built (0 is allowed there)', async () => {
    const res = await rawPost('/protocol/v1/player/setup-transaction', `{"amount":0,"sessionPubkey":"${player.session.publicKey}"}`);
    expect(res.status).toBe(200);
  });

  it('nothing was withdrawn', async () => {
    expect((await player.get('/protocol/v1/player/status')).body.balance).toBe(20);
  });
});
