import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE,
  SOLANA_ERROR__TRANSACTION_ERROR__ALREADY_PROCESSED,
  SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND,
  SOLANA_ERROR__INSTRUCTION_ERROR__CUSTOM,
  blockhash,
  generateKeyPairSigner,
  isSolanaError,
  type KeyPairSigner,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { buildTx, fundedSigner, memoIx, raw, sleep, startTestNet, type TestNet } from './helpers.ts';

const LAMPORTS = 1_000_000_000n;

async function expectRejected(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected the request to fail');
}

describe('localnet: failing, stale and duplicate transactions', () => {
  let net: TestNet;
  let payer: KeyPairSigner;

  beforeAll(async () => {
    net = await startTestNet();
    payer = await fundedSigner(net.rpc, 2n);
  });

  afterAll(async () => {
    await net.dispose();
  });

  it('rejects a failing transaction at preflight with -32002 and does not land it', async () => {
    const { rpc } = net;
    const other = await generateKeyPairSigner();
    const before = (await rpc.getBalance(payer.address).send()).value;
    const tx = await buildTx(rpc, payer, [getTransferSolInstruction({ source: payer, destination: other.address, amount: 100n * LAMPORTS })]);

    const res = await raw(net.ln.url, 'sendTransaction', [tx.wire, { encoding: 'base64' }]);
    expect(res.error?.code).toBe(-32002);
    expect(res.error?.message).toBe('Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1');
    const data = res.error?.data as { err: unknown; logs: string[]; accounts: unknown; unitsConsumed: number; returnData: unknown };
    expect(data.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    expect(data.accounts).toBeNull();
    expect(data.returnData).toBeNull();
    expect(data.unitsConsumed).toBeGreaterThan(0);
    expect(data.logs.some((l) => l.includes('insufficient lamports'))).toBe(true);

    const e = await expectRejected(rpc.sendTransaction(tx.wire, { encoding: 'base64' }).send());
    expect(isSolanaError(e, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE)).toBe(true);
    if (isSolanaError(e)) expect(isSolanaError(e.cause, SOLANA_ERROR__INSTRUCTION_ERROR__CUSTOM)).toBe(true);

    const status = await rpc.getSignatureStatuses([tx.signature]).send();
    expect(status.value).toEqual([null]);
    expect(await rpc.getTransaction(tx.signature, { encoding: 'json', maxSupportedTransactionVersion: 0 }).send()).toBeNull();
    expect((await rpc.getBalance(payer.address).send()).value).toBe(before);
  });

  it('lands a failing transaction sent with skipPreflight, recording its error and charging the fee', async () => {
    const { rpc } = net;
    const other = await generateKeyPairSigner();
    const before = (await rpc.getBalance(payer.address).send()).value;
    const tx = await buildTx(rpc, payer, [
      memoIx('about to fail'),
      getTransferSolInstruction({ source: payer, destination: other.address, amount: 100n * LAMPORTS }),
    ]);
    const sig = await rpc.sendTransaction(tx.wire, { encoding: 'base64', skipPreflight: true }).send();
    expect(sig).toBe(tx.signature);

    const raw1 = await raw(net.ln.url, 'getSignatureStatuses', [[sig]]);
    expect((raw1.result as { value: unknown[] }).value[0]).toEqual({
      slot: expect.any(Number),
      confirmations: null,
      err: { InstructionError: [1, { Custom: 1 }] },
      status: { Err: { InstructionError: [1, { Custom: 1 }] } },
      confirmationStatus: 'finalized',
    });
    const st = await rpc.getSignatureStatuses([sig]).send();
    expect(st.value[0]?.err).toBeTruthy();
    expect(st.value[0]?.confirmationStatus).toBe('finalized');

    const listed = await rpc.getSignaturesForAddress(payer.address, { limit: 1 }).send();
    expect(listed[0]?.signature).toBe(sig);
    expect(listed[0]?.err).toBeTruthy();
    expect(listed[0]?.memo).toBe('[13] about to fail');

    const txr = await rpc.getTransaction(sig, { encoding: 'json', maxSupportedTransactionVersion: 0 }).send();
    expect(txr?.meta?.err).toBeTruthy();
    expect(txr?.meta?.status).toHaveProperty('Err');
    expect(txr?.meta?.fee).toBe(5000n);
    expect(txr?.meta?.logMessages?.at(-1)).toBe('Program 11111111111111111111111111111111 failed: custom program error: 0x1');
    expect(txr?.meta?.preBalances[0]).toBe(before);
    expect(txr?.meta?.postBalances[0]).toBe(before - 5000n);
    expect((await rpc.getBalance(payer.address).send()).value).toBe(before - 5000n);
    expect((await rpc.getBalance(other.address).send()).value).toBe(0n);
  });

  it('rejects an unknown blockhash with BlockhashNotFound, and drops it under skipPreflight', async () => {
    const { rpc } = net;
    const lifetime = { blockhash: blockhash('4uQeVj5tqViQh7yWWGStvkEG1Zmhx6uasJtWCJziofM'), lastValidBlockHeight: 1000n };
    const tx = await buildTx(rpc, payer, [memoIx('stale')], { lifetime });
    const res = await raw(net.ln.url, 'sendTransaction', [tx.wire, { encoding: 'base64' }]);
    expect(res.error).toEqual({
      code: -32002,
      message: 'Transaction simulation failed: Blockhash not found',
      data: { accounts: null, err: 'BlockhashNotFound', innerInstructions: null, logs: [], replacementBlockhash: null, returnData: null, unitsConsumed: 0 },
    });
    const e = await expectRejected(rpc.sendTransaction(tx.wire, { encoding: 'base64' }).send());
    expect(isSolanaError(e, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE)).toBe(true);
    if (isSolanaError(e)) expect(isSolanaError(e.cause, SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND)).toBe(true);

    const sig = await rpc.sendTransaction(tx.wire, { encoding: 'base64', skipPreflight: true }).send();
    expect(sig).toBe(tx.signature);
    expect((await rpc.getSignatureStatuses([sig]).send()).value).toEqual([null]);
    expect((await rpc.isBlockhashValid(lifetime.blockhash).send()).value).toBe(false);
  });

  it('rejects a resend of a landed transaction with AlreadyProcessed and never lands it twice', async () => {
    const { rpc } = net;
    const dest = await generateKeyPairSigner();
    const tx = await buildTx(rpc, payer, [getTransferSolInstruction({ source: payer, destination: dest.address, amount: LAMPORTS / 10n })]);
    await rpc.sendTransaction(tx.wire, { encoding: 'base64' }).send();

    const res = await raw(net.ln.url, 'sendTransaction', [tx.wire, { encoding: 'base64' }]);
    expect(res.error?.code).toBe(-32002);
    expect(res.error?.message).toBe('Transaction simulation failed: This transaction has already been processed');
    expect((res.error!.data as { err: unknown }).err).toBe('AlreadyProcessed');
    const e = await expectRejected(rpc.sendTransaction(tx.wire, { encoding: 'base64' }).send());
    if (isSolanaError(e)) expect(isSolanaError(e.cause, SOLANA_ERROR__TRANSACTION_ERROR__ALREADY_PROCESSED)).toBe(true);
    else throw e;

    expect(await rpc.sendTransaction(tx.wire, { encoding: 'base64', skipPreflight: true }).send()).toBe(tx.signature);
    expect((await rpc.getBalance(dest.address).send()).value).toBe(LAMPORTS / 10n);
    expect(await rpc.getSignaturesForAddress(dest.address).send()).toHaveLength(1);
  });

  it('rejects a bad signature with -32003 and drops it under skipPreflight', async () => {
    const { rpc } = net;
    const tx = await buildTx(rpc, payer, [memoIx('tampered')]);
    const bytes = Buffer.from(tx.wire, 'base64');
    bytes[10] = (bytes[10] ?? 0) ^ 0xff;
    const tampered = bytes.toString('base64');
    const res = await raw(net.ln.url, 'sendTransaction', [tampered, { encoding: 'base64' }]);
    expect(res.error).toEqual({ code: -32003, message: 'Transaction signature verification failure' });
    const dropped = await raw(net.ln.url, 'sendTransaction', [tampered, { encoding: 'base64', skipPreflight: true }]);
    expect(typeof dropped.result).toBe('string');
    expect((await rpc.getSignatureStatuses([dropped.result as never]).send()).value).toEqual([null]);
  });

  it('rejects a fee payer with no account at preflight (AccountNotFound)', async () => {
    const { rpc } = net;
    const poor = await generateKeyPairSigner();
    const tx = await buildTx(rpc, poor, [memoIx('no funds', [poor])]);
    const res = await raw(net.ln.url, 'sendTransaction', [tx.wire, { encoding: 'base64' }]);
    expect(res.error?.code).toBe(-32002);
    expect(res.error?.message).toBe('Transaction simulation failed: Attempt to debit an account but found no record of a prior credit.');
    expect((res.error!.data as { err: unknown }).err).toBe('AccountNotFound');
    expect(await rpc.sendTransaction(tx.wire, { encoding: 'base64', skipPreflight: true }).send()).toBe(tx.signature);
    expect((await rpc.getSignatureStatuses([tx.signature]).send()).value).toEqual([null]);
  });

  it('rejects malformed transactions with -32602', async () => {
    const garbage = await raw(net.ln.url, 'sendTransaction', ['AAAA', { encoding: 'base64' }]);
    expect(garbage.error?.code).toBe(-32602);
    const notB64 = await raw(net.ln.url, 'sendTransaction', ['***', { encoding: 'base64' }]);
    expect(notB64.error?.code).toBe(-32602);
    const badEnc = await raw(net.ln.url, 'sendTransaction', ['AAAA', { encoding: 'hex' }]);
    expect(badEnc.error?.code).toBe(-32602);
    const huge = await raw(net.ln.url, 'sendTransaction', ['A'.repeat(4000), { encoding: 'base64' }]);
    expect(huge.error?.code).toBe(-32602);
    const tx = await buildTx(net.rpc, payer, [memoIx('x')]);
    const truncated = Buffer.from(tx.wire, 'base64').subarray(0, 80).toString('base64');
    const short = await raw(net.ln.url, 'sendTransaction', [truncated, { encoding: 'base64' }]);
    expect(short.error?.code).toBe(-32602);
    expect(short.error?.message).toMatch(/^failed to deserialize/);
  });
});

describe('localnet: blockhash lifetimes', () => {
  let net: TestNet;

  beforeAll(async () => {
    net = await startTestNet({ slotIntervalMs: 2 });
  });

  afterAll(async () => {
    await net.dispose();
  });

  it('issues blockhashes valid for 150 blocks, then rejects them as not found', async () => {
    const { rpc } = net;
    const payer = await fundedSigner(rpc, 1n);
    const latest = await rpc.getLatestBlockhash().send();
    const height = await rpc.getBlockHeight().send();
    expect(latest.value.lastValidBlockHeight).toBeGreaterThanOrEqual(150n);
    expect(latest.value.lastValidBlockHeight).toBeLessThanOrEqual(height + 150n);
    expect(latest.value.lastValidBlockHeight).toBeGreaterThan(height + 100n);

    const fresh = await buildTx(rpc, payer, [memoIx('fresh')], { lifetime: latest.value });
    const stale = await buildTx(rpc, payer, [memoIx('stale')], { lifetime: latest.value });
    await rpc.sendTransaction(fresh.wire, { encoding: 'base64' }).send();
    expect((await rpc.getSignatureStatuses([fresh.signature]).send()).value[0]?.err).toBeNull();

    const deadline = Date.now() + 10_000;
    while ((await rpc.getBlockHeight().send()) <= latest.value.lastValidBlockHeight) {
      if (Date.now() > deadline) throw new Error('block height did not advance');
      await sleep(20);
    }
    expect((await rpc.isBlockhashValid(latest.value.blockhash).send()).value).toBe(false);
    const res = await raw(net.ln.url, 'sendTransaction', [stale.wire, { encoding: 'base64' }]);
    expect(res.error?.code).toBe(-32002);
    expect((res.error!.data as { err: unknown }).err).toBe('BlockhashNotFound');

    const next = await rpc.getLatestBlockhash().send();
    expect(next.value.blockhash).not.toBe(latest.value.blockhash);
    expect(next.context.slot).toBeGreaterThan(latest.context.slot);
  });
});
