import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  address,
  appendTransactionMessageInstructions,
  blockhash,
  compileTransaction,
  createTransactionMessage,
  decodeTransactionFromRpcResponse,
  generateKeyPairSigner,
  getBase58Encoder,
  getBase64Decoder,
  getBase64EncodedWireTransaction,
  lamports,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Instruction,
  type KeyPairSigner,
  type TransactionMessageBytesBase64,
} from '@solana/kit';
import { getCreateAccountInstruction, getTransferSolInstruction } from '@solana-program/system';
import { TOKEN_PROGRAM_ADDRESS, getCreateAssociatedTokenIdempotentInstructionAsync, getInitializeMint2Instruction, getMintSize } from '@solana-program/token';
import { buildTx, fundedSigner, memoIx, raw, sendIxs, startTestNet, type TestNet } from './helpers.ts';

const COMPUTE_BUDGET = address('ComputeBudget111111111111111111111111111111');

function computeBudgetIx(tag: 2 | 3, value: bigint): Instruction {
  const data = new Uint8Array(tag === 2 ? 5 : 9);
  const view = new DataView(data.buffer);
  data[0] = tag;
  if (tag === 2) view.setUint32(1, Number(value), true);
  else view.setBigUint64(1, value, true);
  return { programAddress: COMPUTE_BUDGET, data };
}

describe('localnet: RPC method conformance (as parsed by kit)', () => {
  let net: TestNet;
  let payer: KeyPairSigner;

  beforeAll(async () => {
    net = await startTestNet();
    payer = await fundedSigner(net.rpc);
  });

  afterAll(async () => {
    await net.dispose();
  });

  it('getHealth, getVersion, getGenesisHash, getIdentity', async () => {
    const { rpc } = net;
    expect(await rpc.getHealth().send()).toBe('ok');
    const v = await rpc.getVersion().send();
    expect(v['solana-core']).toMatch(/^\d+\.\d+\.\d+$/);
    expect(typeof v['feature-set']).toBe('number');
    const g = await rpc.getGenesisHash().send();
    expect(getBase58Encoder().encode(g)).toHaveLength(32);
    expect(await rpc.getGenesisHash().send()).toBe(g);
    expect((await rpc.getIdentity().send()).identity).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    const health = await fetch(`${net.ln.url}/health`);
    expect(await health.text()).toBe('ok');
  });

  it('getSlot, getBlockHeight, getEpochInfo, getLatestBlockhash agree', async () => {
    const { rpc } = net;
    const slot = await rpc.getSlot().send();
    const height = await rpc.getBlockHeight().send();
    const epoch = await rpc.getEpochInfo().send();
    const latest = await rpc.getLatestBlockhash().send();
    expect(typeof slot).toBe('bigint');
    expect(epoch.absoluteSlot).toBe(slot);
    expect(epoch.blockHeight).toBe(height);
    expect(epoch.slotIndex).toBeLessThan(epoch.slotsInEpoch);
    expect(epoch.epoch).toBeGreaterThanOrEqual(0n);
    expect(epoch.transactionCount).toBe(await rpc.getTransactionCount().send());
    expect(latest.context.slot).toBe(slot);
    expect(latest.value.lastValidBlockHeight).toBe(height + 150n);
    expect(getBase58Encoder().encode(latest.value.blockhash)).toHaveLength(32);
    expect((await rpc.isBlockhashValid(latest.value.blockhash).send()).value).toBe(true);
    const ctx = await raw(net.ln.url, 'getBalance', [payer.address]);
    const version = (await rpc.getVersion().send())['solana-core'];
    expect((ctx.result as { context: { apiVersion: string } }).context).toEqual({ apiVersion: version, slot: Number(slot) });
  });

  it('getMinimumBalanceForRentExemption matches the runtime rent', async () => {
    expect(await net.rpc.getMinimumBalanceForRentExemption(0n).send()).toBe(890_880n);
    expect(await net.rpc.getMinimumBalanceForRentExemption(165n).send()).toBe(2_039_280n);
  });

  it('getFeeForMessage charges per signature plus priority fee, and returns null for an unknown blockhash', async () => {
    const { rpc } = net;
    const cosigner = await generateKeyPairSigner();
    const latest = (await rpc.getLatestBlockhash().send()).value;
    const toBase64 = (ixs: Instruction[], lifetime = latest): TransactionMessageBytesBase64 => {
      const msg = pipe(
        createTransactionMessage({ version: 0 }),
        (m) => setTransactionMessageFeePayer(payer.address, m),
        (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
        (m) => appendTransactionMessageInstructions(ixs, m),
      );
      return getBase64Decoder().decode(compileTransaction(msg).messageBytes) as TransactionMessageBytesBase64;
    };
    expect((await rpc.getFeeForMessage(toBase64([memoIx('one')])).send()).value).toBe(5000n);
    expect((await rpc.getFeeForMessage(toBase64([memoIx('two', [cosigner])])).send()).value).toBe(10_000n);
    const priced = [computeBudgetIx(2, 300_000n), computeBudgetIx(3, 1_000_000n), memoIx('priced')];
    const fee = (await rpc.getFeeForMessage(toBase64(priced)).send()).value;
    expect(fee).toBe(5000n + 300_000n);
    const sig = await sendIxs(rpc, payer, priced);
    const landed = await rpc.getTransaction(sig, { encoding: 'json', maxSupportedTransactionVersion: 0 }).send();
    expect(landed?.meta?.fee).toBe(fee);
    const unknown = { blockhash: blockhash('4uQeVj5tqViQh7yWWGStvkEG1Zmhx6uasJtWCJziofM'), lastValidBlockHeight: 1n };
    expect((await rpc.getFeeForMessage(toBase64([memoIx('x')], unknown)).send()).value).toBeNull();
  });

  it('requestAirdrop returns a signature the chain knows, with a real transfer behind it', async () => {
    const { rpc } = net;
    const who = await generateKeyPairSigner();
    const sig = await rpc.requestAirdrop(who.address, lamports(1_500_000_000n)).send();
    const st = await rpc.getSignatureStatuses([sig]).send();
    expect(st.value[0]).toEqual({ slot: expect.any(BigInt), confirmations: null, err: null, status: { Ok: null }, confirmationStatus: 'finalized' });
    expect((await rpc.getBalance(who.address).send()).value).toBe(1_500_000_000n);
    const tx = await rpc.getTransaction(sig, { encoding: 'jsonParsed', maxSupportedTransactionVersion: 0 }).send();
    expect(tx?.transaction.message.instructions[0]).toMatchObject({
      program: 'system',
      parsed: { type: 'transfer', info: { destination: who.address, lamports: 1_500_000_000n } },
    });
    expect((await rpc.getSignaturesForAddress(who.address).send()).map((s) => s.signature)).toEqual([sig]);
    const bad = await raw(net.ln.url, 'requestAirdrop', ['nope', 1]);
    expect(bad.error?.code).toBe(-32602);
  });

  it('getAccountInfo / getMultipleAccounts / getBalance in every encoding', async () => {
    const { rpc } = net;
    const missing = (await generateKeyPairSigner()).address;
    const b64 = await rpc.getAccountInfo(payer.address, { encoding: 'base64' }).send();
    expect(b64.value).toEqual({
      data: ['', 'base64'],
      executable: false,
      lamports: (await rpc.getBalance(payer.address).send()).value,
      owner: '11111111111111111111111111111111',
      rentEpoch: expect.any(BigInt),
      space: 0n,
    });
    expect((await rpc.getAccountInfo(payer.address).send()).value?.data).toBe('');
    expect((await rpc.getAccountInfo(payer.address, { encoding: 'base58' }).send()).value?.data).toEqual(['', 'base58']);
    expect((await rpc.getAccountInfo(payer.address, { encoding: 'jsonParsed' }).send()).value?.data).toEqual(['', 'base64']);
    expect((await rpc.getAccountInfo(missing, { encoding: 'base64' }).send()).value).toBeNull();
    expect((await rpc.getBalance(missing).send()).value).toBe(0n);

    const token = await rpc.getAccountInfo(TOKEN_PROGRAM_ADDRESS, { encoding: 'base64', dataSlice: { offset: 0, length: 4 } }).send();
    expect(token.value?.executable).toBe(true);
    expect(token.value?.data).toEqual([Buffer.from([2, 0, 0, 0]).toString('base64'), 'base64']);
    const tooBig = await raw(net.ln.url, 'getAccountInfo', ['MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr', { encoding: 'base58' }]);
    expect(tooBig.error?.code).toBe(-32600);

    const multi = await rpc.getMultipleAccounts([payer.address, missing], { encoding: 'base64' }).send();
    expect(multi.value).toHaveLength(2);
    expect(multi.value[0]?.owner).toBe('11111111111111111111111111111111');
    expect(multi.value[1]).toBeNull();
  });

  it('getTransaction: versions, encodings, kit decoding, unknown signatures', async () => {
    const { rpc } = net;
    const legacySig = await sendIxs(rpc, payer, [memoIx('legacy')], { version: 'legacy' });
    const v0Sig = await sendIxs(rpc, payer, [memoIx('v0', [payer])], { version: 0 });

    const legacyNoVersion = await rpc.getTransaction(legacySig).send();
    expect(legacyNoVersion?.transaction.message.accountKeys[0]).toBe(payer.address);
    expect(legacyNoVersion && 'version' in legacyNoVersion).toBe(false);

    const noMax = await raw(net.ln.url, 'getTransaction', [v0Sig, { encoding: 'json' }]);
    expect(noMax.error).toEqual({
      code: -32015,
      message:
        'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
    });

    const b64 = await rpc.getTransaction(v0Sig, { encoding: 'base64', maxSupportedTransactionVersion: 0 }).send();
    expect(b64?.version).toBe(0);
    expect(b64?.transaction[1]).toBe('base64');
    const decoded = decodeTransactionFromRpcResponse(b64 as NonNullable<typeof b64>);
    expect(decoded.compiledMessage.staticAccounts[0]).toBe(payer.address);
    expect(decoded.transaction?.signatures[payer.address]).toBeTruthy();

    const json = await rpc.getTransaction(v0Sig, { encoding: 'json', maxSupportedTransactionVersion: 0 }).send();
    const fromJson = decodeTransactionFromRpcResponse(json as NonNullable<typeof json>);
    const compiled = fromJson.compiledMessage;
    expect(compiled.version).toBe(0);
    expect('instructions' in compiled && compiled.instructions[0]?.accountIndices).toEqual([0]);
    expect(json?.meta?.innerInstructions).toEqual([]);

    const unknown = '5'.repeat(88);
    expect(await rpc.getTransaction(unknown as never, { encoding: 'json', maxSupportedTransactionVersion: 0 }).send()).toBeNull();
    const processed = await raw(net.ln.url, 'getTransaction', [v0Sig, { commitment: 'processed', maxSupportedTransactionVersion: 0 }]);
    expect(processed.error?.code).toBe(-32602);
  });

  it('simulateTransaction: success, failure, unsigned, replaceRecentBlockhash, accounts, innerInstructions', async () => {
    const { rpc } = net;
    const dest = await generateKeyPairSigner();
    const ok = await buildTx(rpc, payer, [memoIx('sim'), getTransferSolInstruction({ source: payer, destination: dest.address, amount: 1_000_000_000n })]);
    const sim = await rpc.simulateTransaction(ok.wire, { encoding: 'base64', accounts: { addresses: [dest.address], encoding: 'base64' } }).send();
    expect(sim.value.err).toBeNull();
    expect(sim.value.logs).toContain('Program log: sim');
    expect(sim.value.unitsConsumed).toBeGreaterThan(0n);
    expect(sim.value.returnData).toBeNull();
    expect(sim.value.accounts?.[0]?.lamports).toBe(1_000_000_000n);
    // Simulation changes nothing.
    expect((await rpc.getBalance(dest.address).send()).value).toBe(0n);
    expect((await rpc.getSignatureStatuses([ok.signature]).send()).value).toEqual([null]);

    const failing = await buildTx(rpc, payer, [getTransferSolInstruction({ source: payer, destination: dest.address, amount: 10n ** 15n })]);
    const bad = await rpc.simulateTransaction(failing.wire, { encoding: 'base64' }).send();
    expect(bad.value.err).toEqual({ InstructionError: [0n, { Custom: 1n }] });
    expect(bad.value.logs?.length).toBeGreaterThan(0);

    // kit's compute-unit estimation simulates unsigned messages with a placeholder blockhash.
    const unsignedMsg = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayer(payer.address, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: blockhash('11111111111111111111111111111111'), lastValidBlockHeight: 0n }, m),
      (m) => appendTransactionMessageInstructions([memoIx('unsigned')], m),
    );
    const unsigned = getBase64EncodedWireTransaction(compileTransaction(unsignedMsg));
    const stale = await rpc.simulateTransaction(unsigned, { encoding: 'base64' }).send();
    expect(stale.value.err).toBe('BlockhashNotFound');
    const replaced = await rpc.simulateTransaction(unsigned, { encoding: 'base64', replaceRecentBlockhash: true, sigVerify: false }).send();
    expect(replaced.value.err).toBeNull();
    expect(replaced.value.replacementBlockhash?.blockhash).toBe((await rpc.getLatestBlockhash().send()).value.blockhash);
    const verify = await raw(net.ln.url, 'simulateTransaction', [unsigned, { encoding: 'base64', sigVerify: true }]);
    expect(verify.error?.code).toBe(-32003);
    const both = await raw(net.ln.url, 'simulateTransaction', [unsigned, { encoding: 'base64', sigVerify: true, replaceRecentBlockhash: true }]);
    expect(both.error?.code).toBe(-32602);

    const mint = await generateKeyPairSigner();
    const rent = await rpc.getMinimumBalanceForRentExemption(BigInt(getMintSize())).send();
    await sendIxs(rpc, payer, [
      getCreateAccountInstruction({ payer, newAccount: mint, lamports: rent, space: getMintSize(), programAddress: TOKEN_PROGRAM_ADDRESS }),
      getInitializeMint2Instruction({ mint: mint.address, decimals: 2, mintAuthority: payer.address }),
    ]);
    const withInner = await buildTx(rpc, payer, [await getCreateAssociatedTokenIdempotentInstructionAsync({ payer, owner: dest.address, mint: mint.address })]);
    const innerSim = await rpc.simulateTransaction(withInner.wire, { encoding: 'base64', innerInstructions: true }).send();
    expect(innerSim.value.err).toBeNull();
    const inner = innerSim.value.innerInstructions ?? [];
    expect(inner[0]?.index).toBe(0);
    expect(inner[0]?.instructions.map((i) => ('parsed' in i ? (i.parsed as { type: string }).type : null))).toEqual([
      'getAccountDataSize',
      'createAccount',
      'initializeImmutableOwner',
      'initializeAccount3',
    ]);
    const plain = await rpc.simulateTransaction(withInner.wire, { encoding: 'base64' }).send();
    expect((plain.value as { innerInstructions?: unknown }).innerInstructions).toBeNull();
  });

  it('sendTransaction accepts base58 encoding as well as base64', async () => {
    const tx = await buildTx(net.rpc, payer, [memoIx('b58')]);
    const b58 = (await import('@scure/base')).base58.encode(Buffer.from(tx.wire, 'base64'));
    const res = await raw(net.ln.url, 'sendTransaction', [b58]);
    expect(res.result).toBe(tx.signature);
  });
});

describe('localnet: JSON-RPC envelope', () => {
  let net: TestNet;

  beforeAll(async () => {
    net = await startTestNet({ slotIntervalMs: 20 });
  });

  afterAll(async () => {
    await net.dispose();
  });

  const post = async (body: string): Promise<{ status: number; json: unknown }> => {
    const res = await fetch(net.ln.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : null };
  };

  it('answers unknown methods, bad params, parse errors and invalid requests with JSON-RPC errors', async () => {
    expect((await post('{"jsonrpc":"2.0","id":7,"method":"getNothing"}')).json).toEqual({
      jsonrpc: '2.0',
      error: { code: -32601, message: 'Method not found' },
      id: 7,
    });
    const badParams = (await post('{"jsonrpc":"2.0","id":"a","method":"getBalance","params":["xyz"]}')).json as { error: { code: number }; id: string };
    expect(badParams.error.code).toBe(-32602);
    expect(badParams.id).toBe('a');
    expect(((await post('{"jsonrpc":"2.0","id":1,"method":"getBalance","params":{"a":1}}')).json as { error: { code: number } }).error.code).toBe(-32602);
    expect(((await post('{"jsonrpc":"2.0","id":1,"method":"getBalance"}')).json as { error: { code: number } }).error.code).toBe(-32602);
    expect(((await post('{"jsonrpc":"2.0","id":1,"method":"getSignatureStatuses","params":[[1,2]]}')).json as { error: { code: number } }).error.code).toBe(
      -32602,
    );
    expect(((await post('{"jsonrpc":"2.0","id":1,"method":"getMultipleAccounts","params":["x"]}')).json as { error: { code: number } }).error.code).toBe(
      -32602,
    );
    expect(((await post('{"jsonrpc":"2.0","id":1,"method":"getAccountInfo","params":[null]}')).json as { error: { code: number } }).error.code).toBe(-32602);
    expect(((await post('{"jsonrpc":"2.0","id":1,"method":"getTransaction","params":["zz"]}')).json as { error: { code: number } }).error.code).toBe(-32602);
    expect(((await post('{"jsonrpc":"2.0","id":1,"method":"constructor"}')).json as { error: { code: number } }).error.code).toBe(-32601);
    expect((await post('{not json')).json).toEqual({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null });
    expect((await post('{"id":1,"method":"getHealth"}')).json).toEqual({ jsonrpc: '2.0', error: { code: -32600, message: 'Invalid request' }, id: null });
    expect((await post('[]')).json).toEqual({ jsonrpc: '2.0', error: { code: -32600, message: 'Invalid request' }, id: null });
    expect((await post('"just a string"')).json).toEqual({ jsonrpc: '2.0', error: { code: -32600, message: 'Invalid request' }, id: null });
    // Still healthy after all that.
    expect(await net.rpc.getHealth().send()).toBe('ok');
  });

  it('handles batches in order and skips notifications', async () => {
    const { json } = await post(
      JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'getHealth' },
        { jsonrpc: '2.0', method: 'getHealth' },
        { jsonrpc: '2.0', id: 2, method: 'nope' },
        { jsonrpc: '2.0', id: 3, method: 'getSlot' },
      ]),
    );
    expect(json).toEqual([
      { jsonrpc: '2.0', result: 'ok', id: 1 },
      { jsonrpc: '2.0', error: { code: -32601, message: 'Method not found' }, id: 2 },
      { jsonrpc: '2.0', result: expect.any(Number), id: 3 },
    ]);
    const note = await post('{"jsonrpc":"2.0","method":"getHealth"}');
    expect(note.status).toBe(200);
    expect(note.json).toBeNull();
  });

  it('advances slots and rotates blockhashes over time', async () => {
    const { rpc } = net;
    const a = await rpc.getLatestBlockhash().send();
    const b = await vi.waitFor(
      async () => {
        const next = await rpc.getLatestBlockhash().send();
        expect(next.context.slot).toBeGreaterThan(a.context.slot);
        return next;
      },
      { timeout: 10_000, interval: 10 },
    );
    expect(b.context.slot).toBeGreaterThan(a.context.slot);
    expect(b.value.blockhash).not.toBe(a.value.blockhash);
    expect(b.value.lastValidBlockHeight).toBeGreaterThan(a.value.lastValidBlockHeight);
    // An older blockhash stays valid for its lifetime.
    expect((await rpc.isBlockhashValid(a.value.blockhash).send()).value).toBe(true);
    const min = await raw(net.ln.url, 'getSlot', [{ minContextSlot: Number(b.context.slot) + 1_000_000 }]);
    expect(min.error?.code).toBe(-32016);
  });

  it('serves CORS preflight for browser wallets', async () => {
    const res = await fetch(net.ln.url, { method: 'OPTIONS' });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });
});
