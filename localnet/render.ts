// Rendering of stored transactions and accounts in the RPC's encodings (json, jsonParsed, base64, base58).
import { base58 } from '@scure/base';
import type * as svmTypes from 'litesvm/dist/internal.js';
import { isWritable, type InnerIx, type LoadedAddresses, type TokenBalance } from './chain.ts';
import { RpcError, type TxErr } from './errors.ts';
import type { StoredInnerInstruction, TxRecord } from './history.ts';
import { F64, type Json } from './json.ts';
import { parseAccountData, parseInstruction, type MintLookup } from './parse.ts';
import { uiAmountString } from './token.ts';
import { decodeTransaction, type Message, type Transaction } from './wire.ts';

type Obj = { [k: string]: Json };

export type TxEncoding = 'json' | 'jsonParsed' | 'base64' | 'base58';
export type AccountEncoding = 'binary' | 'base58' | 'base64' | 'jsonParsed';

const MAX_BASE58_BYTES = 128;

export function allKeys(m: Message, loaded: LoadedAddresses): string[] {
  return [...m.staticKeys, ...loaded.writable, ...loaded.readonly];
}

export const statusOf = (err: TxErr | null): Obj => (err === null ? { Ok: null } : { Err: err });

/** Token balances as stored in the ledger: a zero amount has a null uiAmount there. */
function renderTokenBalance(b: TokenBalance): Obj {
  const amount = BigInt(b.amount);
  return {
    accountIndex: b.accountIndex,
    mint: b.mint,
    owner: b.owner,
    programId: b.programId,
    uiTokenAmount: {
      amount: b.amount,
      decimals: b.decimals,
      uiAmount: amount === 0n ? null : new F64(Number(amount) / 10 ** b.decimals),
      uiAmountString: uiAmountString(amount, b.decimals),
    },
  };
}

function renderInnerList(list: { index: number; instructions: (StoredInnerInstruction | InnerIx)[] }[], keys: string[], parsed: boolean): Json[] {
  return list.map(({ index, instructions }) => ({
    index,
    instructions: instructions.map((ix) => {
      const data = typeof ix.data === 'string' ? ix.data : base58.encode(ix.data);
      if (!parsed) return { programIdIndex: ix.programIdIndex, accounts: ix.accounts, data, stackHeight: ix.stackHeight };
      return parseInstruction({
        programId: keys[ix.programIdIndex] ?? '',
        accounts: ix.accounts.map((a) => keys[a] ?? ''),
        data: typeof ix.data === 'string' ? base58.decode(ix.data) : ix.data,
        stackHeight: ix.stackHeight,
      });
    }),
  }));
}

/** Inner instructions straight from execution, in jsonParsed form (as simulateTransaction returns them). */
export function renderInnerInstructions(inner: InnerIx[][], keys: string[]): Json[] {
  const list = inner.map((instructions, index) => ({ index, instructions })).filter((e) => e.instructions.length > 0);
  return renderInnerList(list, keys, true);
}

function lookupsJson(m: Message): Json[] {
  return m.lookups.map((l) => ({ accountKey: l.accountKey, writableIndexes: l.writableIndexes, readonlyIndexes: l.readonlyIndexes }));
}

function renderMessage(tx: Transaction, loaded: LoadedAddresses, keys: string[], parsed: boolean): Obj {
  const m = tx.message;
  const out: Obj = {};
  if (parsed) {
    out.accountKeys = keys.map((pubkey, i) => ({
      pubkey,
      signer: i < m.header.numRequiredSignatures,
      source: i < m.staticKeys.length ? 'transaction' : 'lookupTable',
      writable: isWritable(m, i, loaded),
    }));
    out.recentBlockhash = m.recentBlockhash;
    out.instructions = m.instructions.map((ix) =>
      parseInstruction({
        programId: keys[ix.programIdIndex] ?? '',
        accounts: ix.accounts.map((a) => keys[a] ?? ''),
        data: ix.data,
        stackHeight: null,
      }),
    );
  } else {
    out.accountKeys = m.staticKeys;
    out.header = { ...m.header };
    out.recentBlockhash = m.recentBlockhash;
    out.instructions = m.instructions.map((ix) => ({
      programIdIndex: ix.programIdIndex,
      accounts: ix.accounts,
      data: base58.encode(ix.data),
      stackHeight: null,
    }));
  }
  if (m.version === 0) out.addressTableLookups = lookupsJson(m);
  return out;
}

export function renderTransaction(rec: TxRecord, encoding: TxEncoding, maxSupportedVersion: number | undefined): Obj {
  const bytes = Buffer.from(rec.wire, 'base64');
  const tx = decodeTransaction(bytes);
  const version = tx.message.version;
  if (version !== 'legacy' && (maxSupportedVersion === undefined || version > maxSupportedVersion)) {
    throw new RpcError(
      -32015,
      maxSupportedVersion === undefined
        ? `Transaction version (${version}) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": ${version}`
        : `Transaction version (${version}) is not supported by the requesting client.`,
    );
  }
  const loaded = rec.loadedAddresses;
  const keys = allKeys(tx.message, loaded);
  const parsed = encoding === 'jsonParsed';
  let transaction: Json;
  if (encoding === 'base64') transaction = [rec.wire, 'base64'];
  else if (encoding === 'base58') transaction = [base58.encode(bytes), 'base58'];
  else transaction = { signatures: tx.signatures.map((s) => base58.encode(s)), message: renderMessage(tx, loaded, keys, parsed) };

  const meta: Obj = {
    err: rec.err,
    status: statusOf(rec.err),
    fee: BigInt(rec.fee),
    preBalances: rec.preBalances.map(BigInt),
    postBalances: rec.postBalances.map(BigInt),
    innerInstructions: renderInnerList(rec.innerInstructions, keys, parsed),
    logMessages: rec.logs,
    preTokenBalances: rec.preTokenBalances.map(renderTokenBalance),
    postTokenBalances: rec.postTokenBalances.map(renderTokenBalance),
    rewards: [],
  };
  // jsonParsed marks loaded keys inline (`source`), so the real RPC omits loadedAddresses there.
  if (!parsed) meta.loadedAddresses = { writable: loaded.writable, readonly: loaded.readonly };
  if (rec.returnData) meta.returnData = { programId: rec.returnData.programId, data: [rec.returnData.data, 'base64'] };
  meta.computeUnitsConsumed = BigInt(rec.unitsConsumed);

  const out: Obj = { slot: BigInt(rec.slot), transaction, meta, blockTime: BigInt(rec.blockTime) };
  if (maxSupportedVersion !== undefined) out.version = version;
  return out;
}

export interface DataSlice {
  offset: number;
  length: number;
}

export function renderAccount(acct: svmTypes.Account, encoding: AccountEncoding, slice: DataSlice | undefined, mintDecimals: MintLookup): Obj {
  const owner = base58.encode(acct.owner());
  const full = acct.data();
  let data: Json | undefined;
  if (encoding === 'jsonParsed') {
    data = parseAccountData(owner, full, mintDecimals) ?? undefined;
  }
  if (data === undefined) {
    const bytes = slice ? full.subarray(slice.offset, slice.offset + slice.length) : full;
    if (encoding === 'binary' || encoding === 'base58') {
      if (bytes.length > MAX_BASE58_BYTES) {
        throw new RpcError(-32600, 'Encoded binary (base 58) data should be less than 128 bytes, please use Base64 encoding.');
      }
      data = encoding === 'binary' ? base58.encode(bytes) : [base58.encode(bytes), 'base58'];
    } else {
      data = [Buffer.from(bytes).toString('base64'), 'base64'];
    }
  }
  return { data, executable: acct.executable(), lamports: acct.lamports(), owner, rentEpoch: acct.rentEpoch(), space: BigInt(full.length) };
}
