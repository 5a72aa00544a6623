// A newcomer's first steps against the real service: faucet, sign-in, setup with a deposit, sync, status, revoke.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createSolanaRpc, address } from '@solana/kit';
import { startTestService, type TestService } from '../helpers/service.ts';
import { Player, http, newKeypair, sign } from '../helpers/player.ts';
import { buildApp } from '../../api/app.ts';
import { createRpc } from '../../chain/rpc.ts';
import { apiDepsOf } from '../../wiring.ts';
import { AuthStore } from '../../store/auth.ts';
import { defineScripts } from '../../store/scripts.ts';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc?.cleanup();
});

describe('config and house', () => {
  it('publishes the chain objects and operator keys', async () => {
    const { status, body } = await http('GET', `${svc.api}/protocol/v1/config`);
    expect(status).toBe(200);
    for (const field of [
      'cluster',
      'rpcUrl',
      'usdcMint',
      'vaultAuthority',
      'vaultTokenAccount',
      'operatorPublicKey',
      'ackPublicKey',
      'memoProgram',
      'lpMint',
      'rngChainHead',
      'explorerBaseUrl',
    ]) {
      expect(body).toHaveProperty(field);
    }
    expect(body.cluster).toBe('localnet');
    expect(body.memoProgram).toBe('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');
    expect(body.rngChainHead).toMatch(/^[0-9a-f]{64}$/);
    const rpc = createSolanaRpc(body.rpcUrl);
    const vault = await rpc.getTokenAccountBalance(address(body.vaultTokenAccount)).send();
    expect(vault.value.amount).toBe('1000000000000');
  });

  it('returns every field of the house object, live', async () => {
    const { status, body } = await http('GET', `${svc.api}/house`);
    expect(status).toBe(200);
    const fields = [
      'totalValue',
      'baseBankroll',
      'gameNet',
      'volume',
      'apr',
      'maxExposure',
      'utilization',
      'totalStaked',
      'sharePrice',
      'activeReserve',
      'idleReserve',
      'deployableToYield',
      'maxBet',
      'maxPayout',
      'openExposure',
    ];
    for (const f of fields) expect(typeof body.house[f]).toBe('number');
    expect(body.house.strategy).toBe('cash');
    expect(body.house.totalValue).toBe(1_000_000);
    expect(body.house.maxBet).toBe(5_000);
    expect(body.house.maxPayout).toBe(10_000);
    expect(body.house.maxExposure).toBe(250_000);
    expect(body.house.sharePrice).toBe(1);
  });

  it('serves the OpenAPI document and Swagger UI under /api/docs', async () => {
    const doc = await http('GET', `${svc.api}/docs/json`);
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.body.paths)).toEqual(expect.arrayContaining(['/api/wallet/challenge', '/api/protocol/v1/player/setup-transaction', '/api/house']));
    const ui = await fetch(`${svc.api}/docs/`);
    expect(ui.status).toBe(200);
    expect(await ui.text()).toContain('swagger');
  });
});

describe('a new player end to end', () => {
  it('funds, signs in, sets up with a deposit, syncs, reads status, revokes', async () => {
    const player = await new Player(svc.api, svc.rpcUrl).init();
    await player.faucet(500, 1);
    await player.login();
    const built = await player.post('/protocol/v1/player/setup-transaction', { amount: 120.5, sessionPubkey: player.session.publicKey });
    expect(built.status).toBe(200);
    expect(built.body.memo).toBe(`pfws:v1:setup:${player.address}:${player.session.publicKey}`);
    await player.signAndSend(built.body.transaction);
    const synced = await player.post('/protocol/v1/player/sync');
    expect(synced.status).toBe(200);
    expect(synced.body.status.balance).toBe(120.5);
    const status = await player.get('/protocol/v1/player/status');
    expect(status.body.balance).toBe(120.5);
    expect(status.body.exposure).toBe(0);
    expect(status.body.nonces.bet).toBe(0);
    expect(status.body.alias).toMatch(/^p_/);
    expect(status.body.sessionKeys).toEqual([expect.objectContaining({ sessionPubkey: player.session.publicKey, status: 'active' })]);

    const again = await player.post('/protocol/v1/player/sync');
    expect(again.body.applied).toBe(0);
    expect(again.body.status.balance).toBe(120.5);

    const revoke = await player.post('/protocol/v1/player/revoke-session-key-transaction', { sessionPubkey: player.session.publicKey });
    expect(revoke.status).toBe(200);
    await player.signAndSend(revoke.body.transaction);
    await player.post('/protocol/v1/player/sync');
    const after = await player.get('/protocol/v1/player/status');
    expect(after.body.sessionKeys).toEqual([expect.objectContaining({ sessionPubkey: player.session.publicKey, status: 'revoked' })]);
    expect(after.body.balance).toBe(120.5);

    const position = await player.get('/house/position');
    expect(position.status).toBe(200);
    expect(position.body.position).toEqual({ shares: 0, principal: 0, currentValue: 0, profit: 0, ownership: 0 });
  });

  it('a setup without a deposit omits the transfer and still authorizes the key', async () => {
    const player = await new Player(svc.api, svc.rpcUrl).init();
    await player.faucet(10, 1);
    await player.login();
    await player.setup(0);
    const status = await player.get('/protocol/v1/player/status');
    expect(status.body.balance).toBe(0);
    expect(status.body.sessionKeys[0].status).toBe('active');
  });

  it('the indexer credits a deposit on its own, without sync', async () => {
    const player = await new Player(svc.api, svc.rpcUrl).init();
    await player.faucet(50, 1);
    await player.login();
    const built = await player.post('/protocol/v1/player/setup-transaction', { amount: 7, sessionPubkey: player.session.publicKey });
    await player.signAndSend(built.body.transaction);
    let balance = 0;
    for (let i = 0; i < 100 && balance !== 7; i++) {
      await new Promise((r) => setTimeout(r, 100));
      balance = (await player.get('/protocol/v1/player/status')).body.balance;
    }
    expect(balance).toBe(7);
  });
});

describe('wallet errors', () => {
  const challengeOf = async (wallet: string) => (await http('GET', `${svc.api}/wallet/challenge?wallet=${wallet}`)).body;

  it('MISSING_WALLET without the wallet query', async () => {
    for (const url of [`${svc.api}/wallet/challenge`, `${svc.api}/wallet/challenge?wallet=`]) {
      const res = await http('GET', url);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('MISSING_WALLET');
    }
  });

  it('INVALID_WALLET_ADDRESS for a malformed address', async () => {
    for (const bad of ['abc', `0OIl${'x'.repeat(40)}`, '11111111111111111111111111111111111111111111111']) {
      const res = await http('GET', `${svc.api}/wallet/challenge?wallet=${bad}`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('INVALID_WALLET_ADDRESS');
    }
    const res = await http('POST', `${svc.api}/wallet/session`, { walletAddress: 'nope', message: 'x', signature: 'AA==' });
    expect(res.body.error.code).toBe('INVALID_WALLET_ADDRESS');
  });

  it('INVALID_WALLET_SESSION_REQUEST when the body lacks a field', async () => {
    const kp = newKeypair();
    for (const body of [{}, { walletAddress: kp.publicKey }, { walletAddress: kp.publicKey, message: 'm' }, { message: 'm', signature: 's' }]) {
      const res = await http('POST', `${svc.api}/wallet/session`, body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('INVALID_WALLET_SESSION_REQUEST');
    }
  });

  it('WALLET_SESSION_REJECTED for a bad signature, another key, a reused or an expired challenge', async () => {
    const kp = newKeypair();
    const other = newKeypair();
    const c = await challengeOf(kp.publicKey);
    const msg = new TextEncoder().encode(c.message);
    const bad = await http('POST', `${svc.api}/wallet/session`, { walletAddress: kp.publicKey, message: c.message, signature: sign(other.seed, msg) });
    expect(bad.status).toBe(401);
    expect(bad.body.error.code).toBe('WALLET_SESSION_REJECTED');
    const good = await http('POST', `${svc.api}/wallet/session`, { walletAddress: kp.publicKey, message: c.message, signature: sign(kp.seed, msg) });
    expect(good.status).toBe(200);
    expect(good.body.walletAddress).toBe(kp.publicKey);
    const reused = await http('POST', `${svc.api}/wallet/session`, { walletAddress: kp.publicKey, message: c.message, signature: sign(kp.seed, msg) });
    expect(reused.status).toBe(401);
    expect(reused.body.error.code).toBe('WALLET_SESSION_REJECTED');

    const stale = await challengeOf(kp.publicKey);
    svc.clock.offsetMs = 6 * 60_000;
    try {
      const expired = await http('POST', `${svc.api}/wallet/session`, {
        walletAddress: kp.publicKey,
        message: stale.message,
        signature: sign(kp.seed, new TextEncoder().encode(stale.message)),
      });
      expect(expired.status).toBe(401);
      expect(expired.body.error.code).toBe('WALLET_SESSION_REJECTED');
    } finally {
      svc.clock.offsetMs = 0;
    }
  });

  it("a stranger asking for many challenges for a wallet voids none of the owner's", async () => {
    const kp = newKeypair();
    const mine = await challengeOf(kp.publicKey);
    const theirs = [];
    for (let i = 0; i < 20; i++) theirs.push(await challengeOf(kp.publicKey));
    const signIn = (c: { message: string }) =>
      http('POST', `${svc.api}/wallet/session`, {
        walletAddress: kp.publicKey,
        message: c.message,
        signature: sign(kp.seed, new TextEncoder().encode(c.message)),
      });
    expect((await signIn(mine)).status).toBe(200);
    // Each of the others signs in too, once.
    expect((await signIn(theirs[0]!)).status).toBe(200);
    expect((await signIn(theirs[19]!)).status).toBe(200);
    expect((await signIn(theirs[19]!)).body.error.code).toBe('WALLET_SESSION_REJECTED');
  });

  it('a challenge is checked by any API process and spent once across all of them; one altered or made up is refused', async () => {
    const kp = newKeypair();
    const c = await challengeOf(kp.publicKey);
    const body = (message: string) => ({ walletAddress: kp.publicKey, message, signature: sign(kp.seed, new TextEncoder().encode(message)) });
    // Another API process: its own app, sharing only Redis and the challenge secret.
    const other = await buildApp(apiDepsOf(svc.wiring));
    try {
      const base = `${await other.listen({ port: 0, host: '127.0.0.1' })}/api`;
      const there = await http('POST', `${base}/wallet/session`, body(c.message));
      expect(there.status).toBe(200);
      expect(there.body.walletAddress).toBe(kp.publicKey);
      const again = await http('POST', `${svc.api}/wallet/session`, body(c.message));
      expect(again.status).toBe(401);
      expect(again.body.error.code).toBe('WALLET_SESSION_REJECTED');
    } finally {
      await other.close();
    }
    // Signed by the wallet, yet not as issued: another domain, a later expiry, or a nonce of its own.
    const fresh = await challengeOf(kp.publicKey);
    const host = `localhost:${new URL(svc.api).port}`;
    expect(fresh.message).toContain(host);
    for (const message of [
      fresh.message.replaceAll(host, 'evil.example'),
      fresh.message.replace(/Expiration Time: .*/, 'Expiration Time: 2999-01-01T00:00:00.000Z'),
      fresh.message.replace(fresh.nonce, 'ab'.repeat(32)),
    ]) {
      const res = await http('POST', `${svc.api}/wallet/session`, body(message));
      expect(res.status, message).toBe(401);
      expect(res.body.error.code).toBe('WALLET_SESSION_REJECTED');
    }
    expect((await http('POST', `${svc.api}/wallet/session`, body(fresh.message))).status).toBe(200);
  });

  it('the challenge names the wallet and nonce and expires in 5 minutes', async () => {
    const kp = newKeypair();
    const c = await challengeOf(kp.publicKey);
    expect(c.walletAddress).toBe(kp.publicKey);
    expect(c.message).toContain(kp.publicKey);
    expect(c.message).toContain(`Nonce: ${c.nonce}`);
    // Sign-In With Solana layout, naming this server on the port it listens on (a free one here), and never
    // a host the request claims: a phishing site must not get a message with its own domain in it.
    const host = `localhost:${new URL(svc.api).port}`;
    expect(c.message.split('\n').slice(0, 2)).toEqual([`${host} wants you to sign in with your Solana account:`, kp.publicKey]);
    expect(c.message).toContain(`\nURI: http://${host}\n`);
    const spoofed = await fetch(`${svc.api}/wallet/challenge?wallet=${kp.publicKey}`, {
      headers: { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' },
    });
    expect(((await spoofed.json()) as { message: string }).message).toMatch(new RegExp(`^${host} wants you`));
    const ttl = Date.parse(c.expiresAt) - Date.now();
    expect(ttl).toBeGreaterThan(4 * 60_000);
    expect(ttl).toBeLessThanOrEqual(5 * 60_000);
  });

  it('WALLET_SESSION_REQUIRED for a missing, unknown or expired token', async () => {
    const player = await new Player(svc.api, svc.rpcUrl).init();
    await player.login();
    for (const token of ['', 'garbage']) {
      const res = await http('GET', `${svc.api}/protocol/v1/player/status`, undefined, token || undefined);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('WALLET_SESSION_REQUIRED');
    }
    expect((await player.get('/protocol/v1/player/status')).status).toBe(200);
    svc.clock.offsetMs = 25 * 3_600_000;
    try {
      const res = await player.get('/protocol/v1/player/status');
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('WALLET_SESSION_REQUIRED');
    } finally {
      svc.clock.offsetMs = 0;
    }
  });
});

describe('signing out', () => {
  it('DELETE /api/wallet/session revokes the token on every API process at once; other tokens of the wallet keep working', async () => {
    const player = await new Player(svc.api, svc.rpcUrl).init();
    await player.login();
    const revoked = player.token;
    await player.login();
    const kept = player.token;
    // A second API process with its own token cache, whose clock never lets a cached token age out.
    const { redis, keys } = svc.wiring;
    const auth = new AuthStore(redis, keys, defineScripts(redis), { tokenCacheTtlMs: 1_000, now: () => 0 });
    const other = await buildApp(apiDepsOf({ ...svc.wiring, stores: { ...svc.wiring.stores, auth } }));
    const statusThere = async (token: string) =>
      (await other.inject({ method: 'GET', url: '/api/protocol/v1/player/status', headers: { authorization: `Bearer ${token}` } })).statusCode;
    try {
      expect(await statusThere(revoked)).toBe(200);
      const res = await http('DELETE', `${svc.api}/wallet/session`, undefined, revoked);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ revoked: true, walletAddress: player.address });
      const here = await http('GET', `${svc.api}/protocol/v1/player/status`, undefined, revoked);
      expect(here.status).toBe(401);
      expect(here.body.error.code).toBe('WALLET_SESSION_REQUIRED');
      await vi.waitFor(async () => expect(await statusThere(revoked)).toBe(401), { timeout: 10_000, interval: 20 });
      expect(await statusThere(kept)).toBe(200);
      expect((await http('GET', `${svc.api}/protocol/v1/player/status`, undefined, kept)).status).toBe(200);
      // The MCP endpoint takes the same bearer.
      const mcp = await http('POST', `${svc.api}/mcp`, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, revoked);
      expect(mcp.status).toBe(401);
    } finally {
      await other.close();
    }
  });

  it('WALLET_SESSION_REQUIRED without a bearer, with an unknown one, or with one already revoked', async () => {
    const player = await new Player(svc.api, svc.rpcUrl).init();
    await player.login();
    for (const token of [undefined, 'garbage']) {
      const res = await http('DELETE', `${svc.api}/wallet/session`, undefined, token);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('WALLET_SESSION_REQUIRED');
    }
    expect((await http('DELETE', `${svc.api}/wallet/session`, undefined, player.token)).status).toBe(200);
    const twice = await http('DELETE', `${svc.api}/wallet/session`, undefined, player.token);
    expect(twice.status).toBe(401);
    expect(twice.body.error.code).toBe('WALLET_SESSION_REQUIRED');
  });
});

describe('generic errors', () => {
  it('NOT_FOUND for an unknown route, INVALID_REQUEST for a bad body', async () => {
    const res = await http('GET', `${svc.api}/nope`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
    const player = await new Player(svc.api, svc.rpcUrl).init();
    await player.login();
    const bad = await player.post('/protocol/v1/player/setup-transaction', { amount: 1 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('INVALID_REQUEST');
    const badKey = await player.post('/protocol/v1/player/setup-transaction', { amount: 1, sessionPubkey: '11111111111111111111111111111111' });
    expect(badKey.body.error.code).toBe('INVALID_REQUEST');
    const badAmount = await player.post('/protocol/v1/player/setup-transaction', { amount: -1, sessionPubkey: player.session.publicKey });
    expect(badAmount.body.error.code).toBe('INVALID_BET_AMOUNT');
    const raw = await fetch(`${svc.api}/wallet/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{not json' });
    expect(raw.status).toBe(400);
    expect(((await raw.json()) as { error: { code: string } }).error.code).toBe('INVALID_WALLET_SESSION_REQUEST');
  });

  it('malformed URLs and over-long ids still get the envelope', async () => {
    const bad = await http('GET', `${svc.api}/receipts/%E0%A4%A`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('INVALID_REQUEST');
    for (const length of [150, 300, 512, 700]) {
      const res = await http('GET', `${svc.api}/receipts/${'a'.repeat(length)}`);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('RECEIPT_NOT_FOUND');
    }
  });

  it("wrong JSON types are the route's request error, never coerced", async () => {
    const kp = newKeypair();
    const res = await http('POST', `${svc.api}/wallet/session`, { walletAddress: kp.publicKey, message: 12345, signature: true });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_WALLET_SESSION_REQUEST');
  });

  it('the faucet refuses amounts the chain cannot take, without a 500', async () => {
    const kp = newKeypair();
    for (const body of [
      { wallet: kp.publicKey, sol: 1e-7 },
      { wallet: kp.publicKey, sol: '1e400' },
      { wallet: kp.publicKey, usdc: -1 },
      { wallet: kp.publicKey, usdc: 'five' },
    ]) {
      const res = await http('POST', `${svc.api}/dev/faucet`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('INVALID_REQUEST');
    }
  });

  it('the faucet answers 503 with Retry-After while the chain RPC does not answer, and the same request then works', async () => {
    const deps = apiDepsOf(svc.wiring);
    // Nothing listens on port 9: every RPC call fails to connect, as during an outage.
    const app = await buildApp({ ...deps, faucet: { ...deps.faucet!, rpc: createRpc('http://127.0.0.1:9', 2_000) } });
    try {
      const kp = newKeypair();
      const res = await app.inject({ method: 'POST', url: '/api/dev/faucet', payload: { wallet: kp.publicKey, usdc: 5, sol: 0.01 } });
      expect(res.statusCode).toBe(503);
      expect(res.json().error.code).toBe('SERVICE_UNAVAILABLE');
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      const again = await http('POST', `${svc.api}/dev/faucet`, { wallet: kp.publicKey, usdc: 5, sol: 0.01 });
      expect(again.status).toBe(200);
      expect(again.body.usdc).toBe(5);
    } finally {
      await app.close();
    }
  });

  it('a 500 is INTERNAL with a generic message and no internals', async () => {
    const app = await buildApp(apiDepsOf(svc.wiring));
    app.get('/api/boom', async () => {
      throw new Error('secret database password in /etc/thing');
    });
    const res = await app.inject({ method: 'GET', url: '/api/boom' });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ error: { code: 'INTERNAL', message: 'Internal error' } });
    await app.close();
  });

  it('RATE_LIMITED past the configured rate', async () => {
    const limited = await startTestService({ RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_MS: '60000' });
    try {
      const codes: number[] = [];
      for (let i = 0; i < 5; i++) codes.push((await http('GET', `${limited.api}/house`)).status);
      expect(codes.slice(0, 3)).toEqual([200, 200, 200]);
      const res = await http('GET', `${limited.api}/house`);
      expect(res.status).toBe(429);
      expect(res.body.error.code).toBe('RATE_LIMITED');
      // Made-up bearer tokens do not open a fresh budget.
      const bogus = await http('GET', `${limited.api}/house`, undefined, 'made-up-token');
      expect(bogus.status).toBe(429);
      // Nor does a made-up X-Forwarded-For: no proxy is trusted unless TRUST_PROXY names one.
      for (const ip of ['203.0.113.7', '198.51.100.9']) {
        expect((await fetch(`${limited.api}/house`, { headers: { 'x-forwarded-for': ip } })).status).toBe(429);
      }
    } finally {
      await limited.cleanup();
    }
  });
});
