import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSigner, type Address, type KeyPairSigner, type Signature } from '@solana/kit';
import { getCreateAccountInstruction, getTransferSolInstruction } from '@solana-program/system';
import {
  TOKEN_PROGRAM_ADDRESS,
  ASSOCIATED_TOKEN_PROGRAM_ADDRESS,
  findAssociatedTokenPda,
  getBurnCheckedInstruction,
  getBurnInstruction,
  getCloseAccountInstruction,
  getCreateAssociatedTokenIdempotentInstructionAsync,
  getCreateAssociatedTokenInstructionAsync,
  getInitializeAccount3Instruction,
  getInitializeMint2Instruction,
  getMintSize,
  getMintToCheckedInstruction,
  getMintToInstruction,
  getTokenSize,
  getTransferCheckedInstruction,
  getTransferInstruction,
} from '@solana-program/token';
import { MEMO_V1, MEMO_V2, fundedSigner, memoIx, raw, sendIxs, startTestNet, type TestNet } from './helpers.ts';

const DECIMALS = 6;

describe('localnet: SPL token flow with memos', () => {
  let net: TestNet;
  let payer: KeyPairSigner;
  let alice: KeyPairSigner;
  let mint: KeyPairSigner;
  let payerAta: Address;
  let aliceAta: Address;
  let depositSig: Signature;

  beforeAll(async () => {
    net = await startTestNet();
    payer = await fundedSigner(net.rpc);
    alice = await fundedSigner(net.rpc, 1n);
    mint = await generateKeyPairSigner();
    const { rpc } = net;
    const rent = await rpc.getMinimumBalanceForRentExemption(BigInt(getMintSize())).send();
    await sendIxs(rpc, payer, [
      getCreateAccountInstruction({ payer, newAccount: mint, lamports: rent, space: getMintSize(), programAddress: TOKEN_PROGRAM_ADDRESS }),
      getInitializeMint2Instruction({ mint: mint.address, decimals: DECIMALS, mintAuthority: payer.address }),
    ]);
    [payerAta] = await findAssociatedTokenPda({ owner: payer.address, mint: mint.address, tokenProgram: TOKEN_PROGRAM_ADDRESS });
    [aliceAta] = await findAssociatedTokenPda({ owner: alice.address, mint: mint.address, tokenProgram: TOKEN_PROGRAM_ADDRESS });
    await sendIxs(rpc, payer, [
      await getCreateAssociatedTokenInstructionAsync({ payer, owner: payer.address, mint: mint.address }),
      await getCreateAssociatedTokenIdempotentInstructionAsync({ payer, owner: alice.address, mint: mint.address }),
      getMintToCheckedInstruction({ mint: mint.address, token: payerAta, mintAuthority: payer, amount: 5_000_000n, decimals: DECIMALS }),
    ]);
    depositSig = await sendIxs(rpc, payer, [
      getTransferCheckedInstruction({ source: payerAta, mint: mint.address, destination: aliceAta, authority: payer, amount: 1_500_000n, decimals: DECIMALS }),
      memoIx(`pfws:v1:deposit:${payer.address}`, [payer]),
    ]);
  });

  afterAll(async () => {
    await net.dispose();
  });

  it('renders transferChecked and the memo parsed, with token balances and logs (jsonParsed)', async () => {
    const tx = await net.rpc.getTransaction(depositSig, { encoding: 'jsonParsed', maxSupportedTransactionVersion: 0 }).send();
    expect(tx).not.toBeNull();
    if (!tx) return;
    expect(tx.version).toBe(0);
    expect(tx.meta?.err).toBeNull();
    expect(tx.meta?.status).toEqual({ Ok: null });
    expect(tx.meta?.fee).toBe(5000n);
    const ixs = tx.transaction.message.instructions;
    expect(ixs).toHaveLength(2);
    expect(ixs[0]).toEqual({
      program: 'spl-token',
      programId: TOKEN_PROGRAM_ADDRESS,
      parsed: {
        type: 'transferChecked',
        info: {
          source: payerAta,
          mint: mint.address,
          destination: aliceAta,
          authority: payer.address,
          // kit turns every integer it does not allowlist into a bigint, parsed instruction info included.
          tokenAmount: { amount: '1500000', decimals: 6n, uiAmount: 1.5, uiAmountString: '1.5' },
        },
      },
      stackHeight: null,
    });
    expect(ixs[1]).toEqual({ program: 'spl-memo', programId: MEMO_V2, parsed: `pfws:v1:deposit:${payer.address}`, stackHeight: null });

    const keys = tx.transaction.message.accountKeys;
    expect(keys[0]).toEqual({ pubkey: payer.address, signer: true, writable: true, source: 'transaction' });
    const memoKey = keys.find((k) => k.pubkey === MEMO_V2);
    expect(memoKey).toMatchObject({ signer: false, writable: false });

    const pre = tx.meta?.preTokenBalances ?? [];
    const post = tx.meta?.postTokenBalances ?? [];
    const payerIdx = keys.findIndex((k) => k.pubkey === payerAta);
    const aliceIdx = keys.findIndex((k) => k.pubkey === aliceAta);
    expect(pre).toContainEqual({
      accountIndex: payerIdx,
      mint: mint.address,
      owner: payer.address,
      programId: TOKEN_PROGRAM_ADDRESS,
      uiTokenAmount: { amount: '5000000', decimals: DECIMALS, uiAmount: 5, uiAmountString: '5' },
    });
    // The ledger stores a zero token amount with a null uiAmount.
    expect(pre).toContainEqual({
      accountIndex: aliceIdx,
      mint: mint.address,
      owner: alice.address,
      programId: TOKEN_PROGRAM_ADDRESS,
      uiTokenAmount: { amount: '0', decimals: DECIMALS, uiAmount: null, uiAmountString: '0' },
    });
    expect(post.find((b) => b.accountIndex === aliceIdx)?.uiTokenAmount.amount).toBe('1500000');
    expect(post.find((b) => b.accountIndex === payerIdx)?.uiTokenAmount.uiAmountString).toBe('3.5');

    const logs = tx.meta?.logMessages ?? [];
    expect(logs).toContain(`Program ${TOKEN_PROGRAM_ADDRESS} invoke [1]`);
    expect(logs).toContain(`Program log: pfws:v1:deposit:${payer.address}`);
    expect(logs).toContain(`Program ${MEMO_V2} success`);
    expect(tx.meta?.computeUnitsConsumed).toBeGreaterThan(0n);
    expect(tx.meta?.innerInstructions).toEqual([]);
    expect(tx.blockTime).toBeGreaterThan(1_600_000_000n);
  });

  it('renders the same transaction in json with compiled instructions', async () => {
    const tx = await net.rpc.getTransaction(depositSig, { encoding: 'json', maxSupportedTransactionVersion: 0 }).send();
    expect(tx).not.toBeNull();
    if (!tx) return;
    const msg = tx.transaction.message;
    expect(msg.accountKeys[0]).toBe(payer.address);
    expect(msg.header).toEqual({ numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 3 });
    expect('addressTableLookups' in msg && msg.addressTableLookups).toEqual([]);
    const tokenIdx = msg.accountKeys.indexOf(TOKEN_PROGRAM_ADDRESS);
    const ix0 = msg.instructions[0];
    expect(ix0?.programIdIndex).toBe(tokenIdx);
    expect(ix0?.accounts.map((i) => msg.accountKeys[i])).toEqual([payerAta, mint.address, aliceAta, payer.address]);
    expect(typeof ix0?.data).toBe('string');
    expect(tx.meta?.loadedAddresses).toEqual({ writable: [], readonly: [] });
    expect(tx.meta?.rewards).toEqual([]);
    expect(tx.transaction.signatures).toEqual([depositSig]);
  });

  it('renders ATA creation with its inner instructions parsed (stackHeight 2)', async () => {
    const sigs = await net.rpc.getSignaturesForAddress(aliceAta).send();
    const createSig = sigs[sigs.length - 1]?.signature;
    expect(createSig).toBeDefined();
    if (!createSig) return;
    const tx = await net.rpc.getTransaction(createSig, { encoding: 'jsonParsed', maxSupportedTransactionVersion: 0 }).send();
    if (!tx) throw new Error('missing transaction');
    const [createPayer, createAlice, mintTo] = tx.transaction.message.instructions;
    expect(createPayer).toEqual({
      program: 'spl-associated-token-account',
      programId: ASSOCIATED_TOKEN_PROGRAM_ADDRESS,
      parsed: {
        type: 'create',
        info: {
          source: payer.address,
          account: payerAta,
          wallet: payer.address,
          mint: mint.address,
          systemProgram: '11111111111111111111111111111111',
          tokenProgram: TOKEN_PROGRAM_ADDRESS,
        },
      },
      stackHeight: null,
    });
    expect(createAlice).toMatchObject({ parsed: { type: 'createIdempotent', info: { account: aliceAta, wallet: alice.address } } });
    expect(mintTo).toMatchObject({
      program: 'spl-token',
      parsed: {
        type: 'mintToChecked',
        info: {
          mint: mint.address,
          account: payerAta,
          mintAuthority: payer.address,
          tokenAmount: { amount: '5000000', decimals: 6n, uiAmount: 5n, uiAmountString: '5' },
        },
      },
    });
    const inner = tx.meta?.innerInstructions ?? [];
    expect(inner.map((i) => i.index)).toEqual([0, 1]);
    const innerTypes = inner[0]?.instructions.map((i) => ('parsed' in i ? (i.parsed as { type: string }).type : 'raw'));
    expect(innerTypes).toEqual(['getAccountDataSize', 'createAccount', 'initializeImmutableOwner', 'initializeAccount3']);
    for (const ii of inner[0]?.instructions ?? []) expect(ii.stackHeight).toBe(2);
    expect(inner[0]?.instructions[3]).toMatchObject({ parsed: { info: { account: payerAta, mint: mint.address, owner: payer.address } } });
  });

  it('parses system, mint, initializeAccount3, transfer, mintTo, burn, closeAccount and memo v1', async () => {
    const { rpc } = net;
    const extra = await generateKeyPairSigner();
    const rent = await rpc.getMinimumBalanceForRentExemption(BigInt(getTokenSize())).send();
    const sig = await sendIxs(
      rpc,
      payer,
      [
        getCreateAccountInstruction({ payer, newAccount: extra, lamports: rent, space: getTokenSize(), programAddress: TOKEN_PROGRAM_ADDRESS }),
        getInitializeAccount3Instruction({ account: extra.address, mint: mint.address, owner: payer.address }),
        getTransferInstruction({ source: payerAta, destination: extra.address, authority: payer, amount: 250_000n }),
        getMintToInstruction({ mint: mint.address, token: extra.address, mintAuthority: payer, amount: 10n }),
        getBurnInstruction({ account: extra.address, mint: mint.address, authority: payer, amount: 10n }),
        getBurnCheckedInstruction({ account: extra.address, mint: mint.address, authority: payer, amount: 250_000n, decimals: DECIMALS }),
        getCloseAccountInstruction({ account: extra.address, destination: payer.address, owner: payer }),
        getTransferSolInstruction({ source: payer, destination: alice.address, amount: 1234n }),
        memoIx('v1 memo', [], MEMO_V1),
      ],
      { version: 'legacy' },
    );
    const tx = await rpc.getTransaction(sig, { encoding: 'jsonParsed', maxSupportedTransactionVersion: 0 }).send();
    if (!tx) throw new Error('missing transaction');
    expect(tx.version).toBe('legacy');
    const parsed = tx.transaction.message.instructions.map((ix) => ('parsed' in ix ? ix.parsed : null));
    expect(parsed[0]).toEqual({
      type: 'createAccount',
      info: { source: payer.address, newAccount: extra.address, lamports: rent, space: BigInt(getTokenSize()), owner: TOKEN_PROGRAM_ADDRESS },
    });
    expect(parsed[1]).toEqual({ type: 'initializeAccount3', info: { account: extra.address, mint: mint.address, owner: payer.address } });
    expect(parsed[2]).toEqual({ type: 'transfer', info: { source: payerAta, destination: extra.address, amount: '250000', authority: payer.address } });
    expect(parsed[3]).toEqual({ type: 'mintTo', info: { mint: mint.address, account: extra.address, amount: '10', mintAuthority: payer.address } });
    expect(parsed[4]).toEqual({ type: 'burn', info: { account: extra.address, mint: mint.address, amount: '10', authority: payer.address } });
    expect(parsed[5]).toMatchObject({ type: 'burnChecked', info: { tokenAmount: { amount: '250000', uiAmountString: '0.25', uiAmount: 0.25 } } });
    expect(parsed[6]).toEqual({ type: 'closeAccount', info: { account: extra.address, destination: payer.address, owner: payer.address } });
    expect(parsed[7]).toEqual({ type: 'transfer', info: { source: payer.address, destination: alice.address, lamports: 1234n } });
    expect(parsed[8]).toBe('v1 memo');
    expect(tx.transaction.message.instructions[8]).toMatchObject({ program: 'spl-memo', programId: MEMO_V1 });
  });

  it('renders the initializeMint2 transaction', async () => {
    const sigs = await net.rpc.getSignaturesForAddress(mint.address).send();
    const first = sigs[sigs.length - 1];
    if (!first) throw new Error('no signatures for mint');
    const tx = await net.rpc.getTransaction(first.signature, { encoding: 'jsonParsed', maxSupportedTransactionVersion: 0 }).send();
    const ix = tx?.transaction.message.instructions[1];
    expect(ix).toEqual({
      program: 'spl-token',
      programId: TOKEN_PROGRAM_ADDRESS,
      parsed: { type: 'initializeMint2', info: { mint: mint.address, decimals: 6n, mintAuthority: payer.address } },
      stackHeight: null,
    });
  });

  it('serves token accounts and mints as jsonParsed, and token balances', async () => {
    // Earlier tests minted 10 and burned 250_010 base units.
    const supplyNow = '4750000';
    const { rpc } = net;
    const acct = await rpc.getAccountInfo(aliceAta, { encoding: 'jsonParsed' }).send();
    expect(acct.value?.owner).toBe(TOKEN_PROGRAM_ADDRESS);
    expect(acct.value?.space).toBe(165n);
    expect(acct.value?.data).toEqual({
      program: 'spl-token',
      parsed: {
        type: 'account',
        info: {
          isNative: false,
          mint: mint.address,
          owner: alice.address,
          state: 'initialized',
          tokenAmount: { amount: '1500000', decimals: DECIMALS, uiAmount: 1.5, uiAmountString: '1.5' },
        },
      },
      space: 165n,
    });
    const m = await rpc.getAccountInfo(mint.address, { encoding: 'jsonParsed' }).send();
    expect(m.value?.data).toEqual({
      program: 'spl-token',
      parsed: { type: 'mint', info: { decimals: DECIMALS, freezeAuthority: null, isInitialized: true, mintAuthority: payer.address, supply: supplyNow } },
      space: 82n,
    });
    const bal = await rpc.getTokenAccountBalance(aliceAta).send();
    expect(bal.value).toEqual({ amount: '1500000', decimals: DECIMALS, uiAmount: 1.5, uiAmountString: '1.5' });
    const supply = await rpc.getTokenSupply(mint.address).send();
    expect(supply.value).toEqual({ amount: supplyNow, decimals: DECIMALS, uiAmount: 4.75, uiAmountString: '4.75' });
    const owned = await rpc.getTokenAccountsByOwner(alice.address, { mint: mint.address }, { encoding: 'jsonParsed' }).send();
    expect(owned.value.map((a) => a.pubkey)).toEqual([aliceAta]);

    const notToken = await raw(net.ln.url, 'getTokenAccountBalance', [alice.address]);
    expect(notToken.error?.code).toBe(-32602);
    expect(notToken.error?.message).toBe('Invalid param: not a Token account');
  });

  it('lists the deposit with its memo in getSignaturesForAddress', async () => {
    const sigs = await net.rpc.getSignaturesForAddress(aliceAta).send();
    expect(sigs[0]).toEqual({
      signature: depositSig,
      slot: expect.any(BigInt),
      err: null,
      memo: `[${`pfws:v1:deposit:${payer.address}`.length}] pfws:v1:deposit:${payer.address}`,
      blockTime: expect.any(BigInt),
      confirmationStatus: 'finalized',
    });
    expect(sigs[1]?.memo).toBeNull();
  });
});
