import { afterEach, describe, expect, it, vi } from 'vitest';
import { appendFile, cp, mkdtemp, open, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSolanaRpc, generateKeyPairSigner, type Address, type KeyPairSigner, type Signature } from '@solana/kit';
import { getCreateAccountInstruction, getTransferSolInstruction } from '@solana-program/system';
import {
  TOKEN_PROGRAM_ADDRESS,
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstructionAsync,
  getInitializeMint2Instruction,
  getMintSize,
  getMintToCheckedInstruction,
} from '@solana-program/token';
import { startLocalnet } from '../../localnet/index.ts';
import { readSnapshot } from '../../localnet/snapshot.ts';
import { buildTx, fundedSigner, memoIx, raw, sendIxs, sleep, type Rpc } from './helpers.ts';

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'localnet-persist-'));
  dirs.push(d);
  return d;
}

afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

interface World {
  payer: KeyPairSigner;
  friend: Address;
  mint: KeyPairSigner;
  ata: Address;
  sigs: Signature[];
  failedSig: Signature;
}

async function buildWorld(rpc: Rpc): Promise<World> {
  const payer = await fundedSigner(rpc, 5n);
  const friend = (await generateKeyPairSigner()).address;
  const mint = await generateKeyPairSigner();
  const rent = await rpc.getMinimumBalanceForRentExemption(BigInt(getMintSize())).send();
  const sigs: Signature[] = [];
  sigs.push(
    await sendIxs(rpc, payer, [
      getCreateAccountInstruction({ payer, newAccount: mint, lamports: rent, space: getMintSize(), programAddress: TOKEN_PROGRAM_ADDRESS }),
      getInitializeMint2Instruction({ mint: mint.address, decimals: 6, mintAuthority: payer.address }),
    ]),
  );
  const [ata] = await findAssociatedTokenPda({ owner: payer.address, mint: mint.address, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  sigs.push(
    await sendIxs(rpc, payer, [
      await getCreateAssociatedTokenIdempotentInstructionAsync({ payer, owner: payer.address, mint: mint.address }),
      getMintToCheckedInstruction({ mint: mint.address, token: ata, mintAuthority: payer, amount: 42_000_000n, decimals: 6 }),
      memoIx('minted', [payer]),
    ]),
  );
  for (let i = 0; i < 5; i++) {
    sigs.push(await sendIxs(rpc, payer, [getTransferSolInstruction({ source: payer, destination: friend, amount: 10_000_000n }), memoIx(`pay ${i}`)]));
  }
  const failedSig = await sendIxs(rpc, payer, [getTransferSolInstruction({ source: payer, destination: friend, amount: 10n ** 12n })], { skipPreflight: true });
  return { payer, friend, mint, ata, sigs, failedSig };
}

async function observe(rpc: Rpc, w: World): Promise<unknown> {
  return {
    payer: (await rpc.getBalance(w.payer.address).send()).value,
    friend: (await rpc.getBalance(w.friend).send()).value,
    token: (await rpc.getTokenAccountBalance(w.ata).send()).value,
    mint: (await rpc.getAccountInfo(w.mint.address, { encoding: 'jsonParsed' }).send()).value,
    payerSigs: await rpc.getSignaturesForAddress(w.payer.address).send(),
    friendSigs: await rpc.getSignaturesForAddress(w.friend, { limit: 3 }).send(),
    statuses: (await rpc.getSignatureStatuses([...w.sigs, w.failedSig]).send()).value,
    txs: await Promise.all([...w.sigs, w.failedSig].map((s) => rpc.getTransaction(s, { encoding: 'jsonParsed', maxSupportedTransactionVersion: 0 }).send())),
    genesis: await rpc.getGenesisHash().send(),
    count: await rpc.getTransactionCount().send(),
  };
}

async function lineCount(file: string): Promise<number> {
  const text = await readFile(file, 'utf8');
  return text.split('\n').filter(Boolean).length;
}

describe('localnet: persistence', () => {
  it('keeps balances, accounts, history and blockhashes across a clean restart', async () => {
    const dataDir = join(await tempDir(), 'nested', 'chain');
    const first = await startLocalnet({ port: 0, dataDir, slotIntervalMs: 60_000 });
    const rpc1 = createSolanaRpc(first.url) as Rpc;
    const world = await buildWorld(rpc1);
    const before = await observe(rpc1, world);
    const slotBefore = await rpc1.getSlot().send();
    const lifetime = (await rpc1.getLatestBlockhash().send()).value;
    const oldTx = await buildTx(rpc1, world.payer, [memoIx('signed before restart')], { lifetime });
    const landed = await buildTx(rpc1, world.payer, [memoIx('landed before restart')], { lifetime });
    await rpc1.sendTransaction(landed.wire, { encoding: 'base64' }).send();
    const beforeWithLanded = await observe(rpc1, world);
    await first.close();
    expect((await readdir(dataDir)).sort()).toEqual(['snapshot.bin', 'transactions.jsonl']);

    const second = await startLocalnet({ port: 0, dataDir, slotIntervalMs: 60_000 });
    try {
      const rpc2 = createSolanaRpc(second.url) as Rpc;
      expect(await observe(rpc2, world)).toEqual(beforeWithLanded);
      expect(before).not.toEqual(beforeWithLanded);
      expect(await rpc2.getSlot().send()).toBeGreaterThanOrEqual(slotBefore);

      // A blockhash issued before the restart is still within its lifetime.
      expect(await rpc2.sendTransaction(oldTx.wire, { encoding: 'base64' }).send()).toBe(oldTx.signature);
      // And the duplicate check survives the restart.
      const dup = await raw(second.url, 'sendTransaction', [landed.wire, { encoding: 'base64' }]);
      expect((dup.error!.data as { err: unknown }).err).toBe('AlreadyProcessed');

      const newest = await rpc2.getSignaturesForAddress(world.payer.address, { limit: 2 }).send();
      expect(newest.map((s) => s.signature)).toEqual([oldTx.signature, landed.signature]);
    } finally {
      await second.close();
    }
  });

  it('replays transactions that reached the log but not the snapshot (crash recovery)', async () => {
    const dataDir = await tempDir();
    const net = await startLocalnet({ port: 0, dataDir, slotIntervalMs: 60_000, snapshotIntervalMs: 600_000 });
    const crashCopy = await tempDir();
    try {
      const rpc = createSolanaRpc(net.url) as Rpc;
      const world = await buildWorld(rpc);
      const expected = await observe(rpc, world);
      const total = Number(await rpc.getTransactionCount().send());
      const log = join(dataDir, 'transactions.jsonl');
      for (let i = 0; i < 100 && (await lineCount(log)) < total; i++) await sleep(10);
      expect(await lineCount(log)).toBe(total);
      // The snapshot on disk is still the genesis one: copying now is what a crash would leave behind.
      await cp(dataDir, crashCopy, { recursive: true });

      const warnings: unknown[] = [];
      const recovered = await startLocalnet({
        port: 0,
        dataDir: crashCopy,
        slotIntervalMs: 60_000,
        logger: { info() {}, warn: (...a: unknown[]) => warnings.push(a), error() {} },
      });
      try {
        expect(await observe(createSolanaRpc(recovered.url) as Rpc, world)).toEqual(expected);
        expect(warnings.length).toBeGreaterThan(0);
      } finally {
        await recovered.close();
      }
      // Recovery re-snapshots, so a second start has nothing to replay.
      const again = await startLocalnet({
        port: 0,
        dataDir: crashCopy,
        slotIntervalMs: 60_000,
        logger: { info() {}, warn: () => warnings.push('again'), error() {} },
      });
      warnings.length = 0;
      try {
        expect(await observe(createSolanaRpc(again.url) as Rpc, world)).toEqual(expected);
        expect(warnings).toEqual([]);
      } finally {
        await again.close();
      }
    } finally {
      await net.close();
    }
  });

  it('keeps a blockhash issued after the snapshot valid across a crash, as a real cluster does', async () => {
    const dataDir = await tempDir();
    const net = await startLocalnet({ port: 0, dataDir, slotIntervalMs: 20, snapshotIntervalMs: 600_000 });
    const crashCopy = await tempDir();
    const rpc = createSolanaRpc(net.url) as Rpc;
    let signedBeforeCrash: Awaited<ReturnType<typeof buildTx>>;
    try {
      const payer = await fundedSigner(rpc, 1n);
      await sleep(200);
      const lifetime = (await rpc.getLatestBlockhash().send()).value;
      signedBeforeCrash = await buildTx(rpc, payer, [memoIx('signed before the crash')], { lifetime });
      await sleep(200);
      await sendIxs(rpc, payer, [memoIx('the last one logged')]);
      const log = join(dataDir, 'transactions.jsonl');
      for (let i = 0; i < 100 && (await lineCount(log)) < 2; i++) await sleep(10);
      expect(await lineCount(log)).toBe(2);
      // The snapshot on disk is still the genesis one, many blocks before that blockhash was made.
      await cp(dataDir, crashCopy, { recursive: true });
    } finally {
      await net.close();
    }
    const recovered = await startLocalnet({ port: 0, dataDir: crashCopy, slotIntervalMs: 60_000 });
    try {
      const rpc2 = createSolanaRpc(recovered.url) as Rpc;
      expect(await rpc2.sendTransaction(signedBeforeCrash.wire, { encoding: 'base64' }).send()).toBe(signedBeforeCrash.signature);
    } finally {
      await recovered.close();
    }
  });

  it('answers a transaction only once it is in the log on disk, so a crash right after cannot take it back', async () => {
    const dataDir = await tempDir();
    const net = await startLocalnet({ port: 0, dataDir, slotIntervalMs: 60_000, snapshotIntervalMs: 600_000 });
    const rpc = createSolanaRpc(net.url) as Rpc;
    const payer = await fundedSigner(rpc, 1n);
    const log = join(dataDir, 'transactions.jsonl');
    // A slow disk: the log's next write waits until the answer has been checked (or, failing that, a while).
    const probe = await open(join(dataDir, 'probe'), 'w');
    const proto = Object.getPrototypeOf(probe) as { write: (...args: unknown[]) => Promise<unknown> };
    await probe.close();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const write = proto.write;
    const spy = vi.spyOn(proto, 'write').mockImplementation(async function (this: unknown, ...args: unknown[]) {
      await gate;
      return write.apply(this, args);
    });
    const fallback = setTimeout(release, 1_000);
    try {
      const signature = await sendIxs(rpc, payer, [memoIx('durable')]);
      const onDisk = (await readFile(log, 'utf8')).includes(signature);
      release();
      expect(onDisk).toBe(true);
    } finally {
      release();
      clearTimeout(fallback);
      spy.mockRestore();
      await net.close();
    }
  });

  it('snapshots shortly after changes, without waiting for close', async () => {
    const dataDir = await tempDir();
    const net = await startLocalnet({ port: 0, dataDir, slotIntervalMs: 60_000, snapshotIntervalMs: 50 });
    const crashCopy = await tempDir();
    try {
      const rpc = createSolanaRpc(net.url) as Rpc;
      const payer = await fundedSigner(rpc, 3n);
      const genesisSnapshot = await stat(join(dataDir, 'snapshot.bin'));
      await sendIxs(rpc, payer, [memoIx('snap me')]);
      const balance = (await rpc.getBalance(payer.address).send()).value;
      // A snapshot written after the memo covers every logged transaction; copying it now is a crash after it.
      const logged = await lineCount(join(dataDir, 'transactions.jsonl'));
      await vi.waitFor(async () => expect((await readSnapshot(dataDir))?.meta.appliedCount).toBe(logged), { timeout: 10_000, interval: 20 });
      expect((await stat(join(dataDir, 'snapshot.bin'))).mtimeMs).toBeGreaterThan(genesisSnapshot.mtimeMs);
      await cp(dataDir, crashCopy, { recursive: true });
      const warnings: unknown[] = [];
      const copy = await startLocalnet({
        port: 0,
        dataDir: crashCopy,
        slotIntervalMs: 60_000,
        logger: { info() {}, warn: (...a: unknown[]) => warnings.push(a), error() {} },
      });
      try {
        expect((await createSolanaRpc(copy.url).getBalance(payer.address).send()).value).toBe(balance);
        expect(warnings).toEqual([]);
      } finally {
        await copy.close();
      }
    } finally {
      await net.close();
    }
  });

  it('refuses a data dir already in use, and frees it on close', async () => {
    const dataDir = await tempDir();
    const first = await startLocalnet({ port: 0, dataDir, slotIntervalMs: 60_000 });
    await expect(startLocalnet({ port: 0, dataDir, slotIntervalMs: 60_000 })).rejects.toThrow(/in use/);
    await first.close();
    const second = await startLocalnet({ port: 0, dataDir, slotIntervalMs: 60_000 });
    await second.close();
  });

  it('drops a torn final line of the transaction log and keeps working', async () => {
    const dataDir = await tempDir();
    const first = await startLocalnet({ port: 0, dataDir, slotIntervalMs: 60_000 });
    const rpc1 = createSolanaRpc(first.url) as Rpc;
    const payer = await fundedSigner(rpc1, 1n);
    const sig = await sendIxs(rpc1, payer, [memoIx('before tear')]);
    await first.close();
    const log = join(dataDir, 'transactions.jsonl');
    const size = (await stat(log)).size;
    await appendFile(log, '{"signature":"half-written');

    const second = await startLocalnet({ port: 0, dataDir, slotIntervalMs: 60_000 });
    const rpc2 = createSolanaRpc(second.url) as Rpc;
    expect((await stat(log)).size).toBe(size);
    expect((await rpc2.getTransaction(sig, { encoding: 'json', maxSupportedTransactionVersion: 0 }).send())?.meta?.logMessages).toContain(
      'Program log: before tear',
    );
    const after = await sendIxs(rpc2, payer, [memoIx('after tear')]);
    await second.close();

    const third = await startLocalnet({ port: 0, dataDir, slotIntervalMs: 60_000 });
    try {
      const rpc3 = createSolanaRpc(third.url) as Rpc;
      const listed = await rpc3.getSignaturesForAddress(payer.address).send();
      expect(listed.map((s) => s.signature).slice(0, 2)).toEqual([after, sig]);
      expect((await rpc3.getTransaction(after, { encoding: 'json', maxSupportedTransactionVersion: 0 }).send())?.meta?.err).toBeNull();
    } finally {
      await third.close();
    }
  });
});
