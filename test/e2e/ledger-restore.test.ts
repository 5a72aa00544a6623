// Issue 23's story, as an operator lives it: Redis restored from a snapshot older than the chain's newest commit.
// The service refuses to start, naming both sizes, both roots and the way out; `npm run ledger -- recover` rebuilds
// the tail from the ClickHouse archive (plays, a Sweeper ticket, an LP deposit, a new player's deposit, a paid withdrawal) and checks
// the root against the chain, naming what it cannot rebuild (a bet committed but not yet revealed: the archive holds
// no settlement to take its signed inputs from); the service then starts with the same books and anchors on, and
// `pfws-verify log` finds no fork.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { Keys } from '../../store/keys.ts';
import { formatMicro } from '../../protocol/money.ts';
import { Player } from '../helpers/player.ts';
import { exitOf, freePort, Processes, waitForLog } from '../helpers/process.ts';
import { SnapshotRedis } from '../helpers/redis-snapshots.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const procs = new Processes();
let redis: SnapshotRedis | null = null;
let client: Redis | null = null;

afterAll(async () => {
  procs.cleanup();
  client?.disconnect();
  await redis?.stop();
});

async function until<T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn().catch(() => null);
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const withdraw = (p: Player, amount: number) =>
  fetch(`${p.api}/protocol/v1/player/withdraw`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${p.token}`, 'idempotency-key': randomBytes(8).toString('hex') },
    body: JSON.stringify({ amount }),
  }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

/** One easy ticket: a choice in row 0, then a cashout when it was safe. */
async function playTicket(p: Player): Promise<string> {
  const opened = await p.openTicket('easy', 1);
  expect(opened.status).toBe(200);
  const ticketId = opened.body.ticket.id as string;
  const turn = async (prepared: { clientSeedRaw: string; res: { status: number; body: any } }) => {
    expect(prepared.res.status).toBe(200);
    const c = await p.commitSweeper(prepared.res.body);
    expect(c.status).toBe(200);
    const r = await p.revealSweeper(prepared.res.body.betPayloadHash, prepared.clientSeedRaw, c.body.ack.revealMessage);
    expect(r.status).toBe(200);
    return r.body;
  };
  const first = await turn(await p.prepareChoice(ticketId, 0, 0));
  if (first.ticket.status === 'running') await turn(await p.prepareCashout(ticketId));
  return ticketId;
}

describe('a ledger restored from a snapshot older than the chain', () => {
  it('refuses to start, is recovered from the archive, then anchors on with no fork', async () => {
    const dir = procs.tempDir();
    redis = new SnapshotRedis(path.join(dir, 'redis'));
    await redis.start();
    client = new Redis(redis.url, { maxRetriesPerRequest: null });
    client.on('error', () => undefined);
    const prefix = `test-${randomBytes(6).toString('hex')}`;
    const keys = new Keys(prefix);
    const [port, rpcPort] = [await freePort(), await freePort()];
    const env = {
      REDIS_URL: redis.url,
      REDIS_PREFIX: prefix,
      DATA_DIR: path.join(dir, 'data'),
      PORT: String(port),
      HOST: '127.0.0.1',
      LOCALNET_PORT: String(rpcPort),
      API_WORKERS: '0',
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
      RNG_CHAIN_LENGTH: '5000',
      INDEXER_POLL_MS: '200',
      ANCHOR_MAX_DELAY_MS: '200',
      MANIFEST_MAX_DELAY_MS: '200',
    };
    const api = `http://127.0.0.1:${port}/api`;
    const rpcUrl = `http://127.0.0.1:${rpcPort}`;
    const c = client;
    /** Every settled play committed on-chain and its receipt filled. */
    const anchored = () =>
      until('every entry anchored', async () => {
        const [size, state] = await Promise.all([c.llen(keys.betLog()), c.hmget(keys.anchor(), 'committedSize', 'filled')]);
        return size > 0 && Number(state[0]) === size && Number(state[1]) === size && size;
      });
    /** Every journal event, receipt and manifest archived in ClickHouse. */
    const archived = (size: number) =>
      until('everything archived', async () => {
        const [seq, shipped, progress, manifest] = await Promise.all([
          c.get(keys.journalSeq()),
          c.hget(keys.heartbeat('shipper'), 'shippedSeq'),
          c.hmget(keys.archiveProgress(), 'settled', 'anchored', 'manifestSeq'),
          c.hget(keys.manifest(), 'lastSeq'),
        ]);
        return Number(shipped) === Number(seq) && Number(progress[0]) === size && Number(progress[1]) === size && Number(progress[2]) === Number(manifest);
      });

    let svc = procs.start(env);
    await waitForLog(svc, /pfws started/);
    const a = await new Player(api, rpcUrl).onboard(50);
    await a.playDice({ wager: 1 });
    await a.playDice({ wager: 2, target: 60 });
    expect(await anchored()).toBe(2);
    await redis.snapshot('two-anchored.rdb');

    // After the snapshot: a Dice play, a Sweeper ticket and LP shares minted; a new player with a deposit and a play, a
    // paid withdrawal.
    await a.playDice({ wager: 1, target: 30 });
    const ticketId = await playTicket(a);
    const lpTx = await a.post('/protocol/v1/house/lp-deposit-transaction', { amount: 5 });
    expect(lpTx.status).toBe(200);
    await a.signAndSend(lpTx.body.transaction);
    await until('the LP shares minted', async () => (await a.get('/house/position')).body.position.shares > 0, 60_000);
    const b = await new Player(api, rpcUrl).onboard(20);
    await b.playDice({ wager: 1 });
    const w = await withdraw(b, 2);
    expect(w.status).toBe(200);
    await until('the withdrawal paid', async () => (await b.get('/protocol/v1/player/status')).body.withdrawals[0]?.status === 'finalized', 60_000);
    const unrevealed = await b.prepareDice({ wager: 1 });
    const acked = await b.commitDice(unrevealed.res.body);
    expect(acked.status).toBe(200);
    const size = await anchored();
    expect(size).toBe(5);
    await archived(size);
    const books = { a: (await a.get('/protocol/v1/player/status')).body, b: (await b.get('/protocol/v1/player/status')).body };
    const position = (await a.get('/house/position')).body;
    const house = (await a.get('/house')).body.house;
    const micro = (n: number) => BigInt(Math.round(n * 1e6));

    svc.child.kill('SIGTERM');
    await exitOf(svc, 60_000);
    // The ledger as it was lost, field by field: recovery must give back exactly this, less the unrebuilt bet.
    const ledgerOf = async () => ({
      house: await c.hgetall(keys.house()),
      a: await c.hgetall(keys.player(a.address)),
      b: await c.hgetall(keys.player(b.address)),
      ticket: await c.hgetall(keys.ticket(ticketId)),
    });
    const lost = await ledgerOf();
    const unrevealedExposure = BigInt((await c.hget(keys.bet(unrevealed.res.body.betPayloadHash), 'exposureDelta')) ?? '');
    expect(unrevealedExposure).toBeGreaterThan(0n);
    await redis.restore('two-anchored.rdb');
    expect(await c.llen(keys.betLog())).toBe(2);

    const refused = procs.start(env);
    expect(await exitOf(refused, 180_000)).toBe(1);
    expect(refused.output()).toMatch(
      /start-up error: the bet log does not hold the newest on-chain commit of the anchor key \w+ as a prefix: the ledger's bet log holds 2 entries \(root [0-9a-f]{64}\), but the commit \w+ covers 5 entries \(root [0-9a-f]{64}\)/,
    );
    expect(refused.output()).toContain('`npm run ledger -- recover`');
    expect(refused.output()).not.toMatch(/\n\s+at /);

    const status = procs.start(env, ['status'], 'ledger/cli.ts');
    expect(await exitOf(status, 180_000), status.output()).toBe(1);
    expect(status.output()).toMatch(/log: NOT WHOLE\. the bet log does not hold the newest on-chain commit .* holds 2 entries .* covers 5 entries/);
    expect(status.output()).toMatch(/journal: the ledger is at seq \d+, the ClickHouse archive at seq \d+: \d+ archived events are missing from the ledger/);

    const recovered = procs.start(env, ['recover'], 'ledger/cli.ts');
    expect(await exitOf(recovered, 300_000), recovered.output()).toBe(0);
    const report = recovered.output();
    expect(report).toMatch(/ledger recover: recovered: the log holds the chain's newest commit: 5 entries, root [0-9a-f]{64}/);
    expect(report).toMatch(/after: {2}5 bet-log entries/);
    // Every play, the new player's key and deposit, the withdrawal's request and payout: all through the ledger's scripts.
    expect(report).toMatch(
      /restored: \d+ journal events \(3 plays settled again, 3 chain items, 2 withdrawal steps, 2 LP steps\), [1-9]\d* manifests, [1-9]\d* commit records/,
    );
    expect(report).not.toMatch(/MISMATCH/);
    expect(report).toMatch(/books: ok vault/);
    // The acknowledged but unrevealed bet is named, with its wallet and wager; its stake was not taken.
    const hash = unrevealed.res.body.betPayloadHash as string;
    expect(report).toMatch(/NOT REBUILT \(1\)/);
    expect(report).toMatch(
      new RegExp(`seq \\d+ bet_committed ${hash} \\(player p_\\w+, wallet ${b.address}\\): wager 1 USDC: no settlement of this bet is archived`),
    );
    // Balances, stakes, banked, exposure and the house's books equal the lost ledger's, but for the unrebuilt bet:
    // its stake is back in the balance and its exposure is not reserved.
    const plus = (fields: Record<string, string>, deltas: Record<string, bigint>) =>
      Object.fromEntries(Object.entries(fields).map(([f, v]) => [f, f in deltas ? (BigInt(v) + deltas[f]!).toString() : v]));
    const stakeBack = { balance: 1_000_000n, staked: -1_000_000n, exposure: -unrevealedExposure };
    expect(await ledgerOf()).toEqual({
      house: plus(lost.house, { balances: 1_000_000n, staked: -1_000_000n, exposure: -unrevealedExposure }),
      a: lost.a,
      b: plus(lost.b, stakeBack),
      ticket: lost.ticket,
    });
    const owed = ['balances', 'staked', 'banked', 'pendingWithdrawals', 'unattributed', 'lpPending', 'lpPayable'];
    const rebuilt = await c.hgetall(keys.house());
    const nav = BigInt(rebuilt.vault ?? '0') - owed.reduce((sum, f) => sum + BigInt(rebuilt[f] ?? '0'), 0n);
    expect(nav).toBe(micro(house.totalValue));

    svc = procs.start(env);
    await waitForLog(svc, /pfws started/);
    expect((await a.get('/protocol/v1/player/status')).body).toEqual(books.a);
    // The LP shares and principal are whole; their value moves with the NAV, which no longer reserves the unrebuilt bet.
    expect((await a.get('/house/position')).body.position).toMatchObject({ shares: position.position.shares, principal: position.position.principal });
    await b.login();
    expect((await b.get('/protocol/v1/player/status')).body).toEqual({
      ...books.b,
      balance: Number(formatMicro(BigInt(Math.round(books.b.balance * 1e6)) + 1_000_000n)),
      stakedInPlay: 0,
      exposure: 0,
    });
    // The house's results, LP principal and NAV (vault − owed) are whole; the unrebuilt bet's open exposure is not held any more.
    const { baseBankroll, gameNet, volume } = house;
    expect((await a.get('/house')).body.house).toMatchObject({
      baseBankroll,
      gameNet,
      volume,
      totalStaked: house.totalStaked,
      activeReserve: 0,
      openExposure: 0,
      totalValue: house.totalValue,
    });
    await a.playDice({ wager: 1 });
    expect(await anchored()).toBe(6);

    const verify = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'pfws-verify.mjs'), 'log', '--api', api, '--rpc', rpcUrl, '--json'], {
      env: { ...process.env, PFWS_VERIFY_HOME: procs.tempDir() },
      encoding: 'utf8',
    });
    expect(verify.status, `${verify.stdout}\n${verify.stderr}`).toBe(0);
    expect(JSON.parse(verify.stdout).ok).toBe(true);
    svc.child.kill('SIGTERM');
    await exitOf(svc, 60_000);
  }, 900_000);
});
