// Solana JSON-RPC method handlers over the chain and the history store.
import { base58 } from '@scure/base';
import type { Chain, LandedResult, LoadedAddresses, SimResult } from './chain.ts';
import { verifySignature } from './ed25519.ts';
import { RpcError, invalidParams, txErrorText, type TxErr } from './errors.ts';
import { feeForMessage } from './fees.ts';
import type { History, Logger, TxRecord } from './history.ts';
import type { Json } from './json.ts';
import { formatMemos } from './parse.ts';
import { TOKEN_2022_PROGRAM, isMemoProgram, isTokenProgram } from './programs.ts';
import {
  allKeys,
  renderAccount,
  renderInnerInstructions,
  renderTransaction,
  statusOf,
  type AccountEncoding,
  type DataSlice,
  type TxEncoding,
} from './render.ts';
import { decodeMint, decodeTokenAccount, isTokenAccountData, uiTokenAmount } from './token.ts';
import { PACKET_DATA_SIZE, WireError, decodeMessage, decodeTransaction, sanitize, signatureString, type Transaction } from './wire.ts';

export const SOLANA_CORE_VERSION = '2.3.0';
const FEATURE_SET = 3640012085;
const MAX_MULTIPLE_ACCOUNTS = 100;
const MAX_SIGNATURE_STATUSES = 256;
const MAX_SIGNATURES_FOR_ADDRESS = 1000;
const MAX_BASE58_TX = 1683;
const MAX_BASE64_TX = 1644;
const EMPTY_LOADED: LoadedAddresses = { writable: [], readonly: [] };

type Obj = { [k: string]: Json };
type Params = unknown[];
type Handler = (p: Params) => Json | Promise<Json>;

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function config(p: Params, i: number): Record<string, unknown> {
  const v = p[i];
  if (v === undefined || v === null) return {};
  if (!isObj(v)) throw invalidParams(`Invalid params: invalid type: expected a map at position ${i}`);
  return v;
}

function str(p: Params, i: number, what: string): string {
  const v = p[i];
  if (typeof v !== 'string') throw invalidParams(`Invalid params: missing or invalid ${what}`);
  return v;
}

const U64_MAX = 2n ** 64n - 1n;

function u64(v: unknown, what: string): bigint {
  let n: bigint | null = null;
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0) n = BigInt(v);
  else if (typeof v === 'string' && /^\d{1,20}$/.test(v)) n = BigInt(v);
  if (n === null || n > U64_MAX) throw invalidParams(`Invalid params: invalid ${what}`);
  return n;
}

function optU64(v: unknown, what: string): bigint | undefined {
  return v === undefined || v === null ? undefined : u64(v, what);
}

// Length checks first: base58 decoding is quadratic, so a huge string must not reach it.
function base58Of(byteLength: number, maxChars: number) {
  return (s: string): string => {
    if (s.length > maxChars) throw invalidParams('Invalid param: WrongSize');
    let bytes: Uint8Array;
    try {
      bytes = base58.decode(s);
    } catch {
      throw invalidParams('Invalid param: Invalid');
    }
    if (bytes.length !== byteLength) throw invalidParams('Invalid param: WrongSize');
    return s;
  };
}

const pubkey = base58Of(32, 44);
const signature = base58Of(64, 88);

function optString(c: Record<string, unknown>, key: string): string | undefined {
  const v = c[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw invalidParams(`Invalid params: invalid ${key}`);
  return v;
}

function optBool(c: Record<string, unknown>, key: string): boolean {
  const v = c[key];
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') throw invalidParams(`Invalid params: invalid ${key}`);
  return v;
}

function accountEncoding(c: Record<string, unknown>): AccountEncoding {
  const e = optString(c, 'encoding') ?? 'binary';
  if (e === 'binary' || e === 'base58' || e === 'base64' || e === 'jsonParsed') return e;
  throw invalidParams(`Invalid params: unsupported encoding: ${e}`);
}

function dataSlice(c: Record<string, unknown>): DataSlice | undefined {
  const v = c.dataSlice;
  if (v === undefined || v === null) return undefined;
  if (!isObj(v)) throw invalidParams('Invalid params: invalid dataSlice');
  return { offset: Number(u64(v.offset, 'dataSlice.offset')), length: Number(u64(v.length, 'dataSlice.length')) };
}

function decodeWire(encoded: string, encoding: string): Transaction {
  let bytes: Uint8Array;
  if (encoding === 'base58') {
    if (encoded.length > MAX_BASE58_TX) {
      throw invalidParams(
        `base58 encoded solana_transaction::versioned::VersionedTransaction too large: ${encoded.length} bytes (max: encoded/raw ${MAX_BASE58_TX}/${PACKET_DATA_SIZE})`,
      );
    }
    try {
      bytes = base58.decode(encoded);
    } catch {
      throw invalidParams('invalid base58 encoding: InvalidCharacter');
    }
  } else if (encoding === 'base64') {
    if (encoded.length > MAX_BASE64_TX) {
      throw invalidParams(
        `base64 encoded solana_transaction::versioned::VersionedTransaction too large: ${encoded.length} bytes (max: encoded/raw ${MAX_BASE64_TX}/${PACKET_DATA_SIZE})`,
      );
    }
    if (encoded.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(encoded)) throw invalidParams('invalid base64 encoding: InvalidByte');
    bytes = Buffer.from(encoded, 'base64');
  } else {
    throw invalidParams(`unsupported encoding: ${encoding}. Supported encodings: base58, base64`);
  }
  if (bytes.length > PACKET_DATA_SIZE) {
    throw invalidParams(`decoded solana_transaction::versioned::VersionedTransaction too large: ${bytes.length} bytes (max: ${PACKET_DATA_SIZE} bytes)`);
  }
  let tx: Transaction;
  try {
    tx = decodeTransaction(new Uint8Array(bytes));
  } catch (e) {
    if (e instanceof WireError) throw invalidParams(`failed to deserialize solana_transaction::versioned::VersionedTransaction: ${e.message}`);
    throw e;
  }
  if (!sanitize(tx)) throw invalidParams('invalid transaction: Transaction failed to sanitize accounts offsets correctly');
  return tx;
}

function verifyAll(tx: Transaction): boolean {
  const m = tx.message;
  for (let i = 0; i < tx.signatures.length; i++) {
    const key = m.staticKeys[i];
    const sig = tx.signatures[i];
    if (key === undefined || sig === undefined || !verifySignature(base58.decode(key), tx.messageBytes, sig)) return false;
  }
  return true;
}

function memoOf(tx: Transaction): string | null {
  const memos: Uint8Array[] = [];
  for (const ix of tx.message.instructions) {
    if (isMemoProgram(tx.message.staticKeys[ix.programIdIndex] ?? '')) memos.push(ix.data);
  }
  return formatMemos(memos);
}

function returnDataJson(rd: SimResult['returnData']): Json {
  return rd ? { programId: rd.programId, data: [Buffer.from(rd.data).toString('base64'), 'base64'] } : null;
}

function preflightFailure(err: TxErr, sim?: SimResult): RpcError {
  return new RpcError(-32002, `Transaction simulation failed: ${txErrorText(err)}`, {
    accounts: null,
    err,
    innerInstructions: null,
    logs: sim?.logs ?? [],
    replacementBlockhash: null,
    returnData: returnDataJson(sim?.returnData ?? null),
    unitsConsumed: sim?.unitsConsumed ?? 0n,
  });
}

export class Rpc {
  /**
   * Resolves once every transaction landed so far is in the transaction log on disk. Every answer waits for it, so
   * nothing a client is told (a signature, a status, a balance) can be lost by a crash right after: state is
   * rebuilt from the snapshot and that log.
   */
  durable(): Promise<void> {
    return this.history.flushed();
  }

  readonly handlers: Record<string, Handler>;

  constructor(
    private readonly chain: Chain,
    private readonly history: History,
    private readonly onChange: () => void,
    private readonly log: Logger,
  ) {
    this.handlers = {
      getHealth: () => 'ok',
      getVersion: () => ({ 'solana-core': SOLANA_CORE_VERSION, 'feature-set': FEATURE_SET }),
      getGenesisHash: () => this.chain.genesisHash,
      getIdentity: () => ({ identity: base58.encode(this.chain.faucet.publicKey) }),
      getSlot: (p) => this.ctxCheck(config(p, 0)) ?? this.chain.slot,
      getBlockHeight: (p) => this.ctxCheck(config(p, 0)) ?? this.chain.blockHeight,
      getTransactionCount: () => BigInt(this.history.count),
      getEpochInfo: (p) => {
        this.ctxCheck(config(p, 0));
        const e = this.chain.epochInfo();
        return {
          absoluteSlot: this.chain.slot,
          blockHeight: this.chain.blockHeight,
          epoch: e.epoch,
          slotIndex: e.slotIndex,
          slotsInEpoch: e.slotsInEpoch,
          transactionCount: BigInt(this.history.count),
        };
      },
      getLatestBlockhash: (p) => {
        this.ctxCheck(config(p, 0));
        return this.ctx({ blockhash: this.chain.latestBlockhash, lastValidBlockHeight: this.chain.latestLastValidBlockHeight() });
      },
      isBlockhashValid: (p) => {
        const hash = str(p, 0, 'blockhash');
        this.ctxCheck(config(p, 1));
        return this.ctx(this.chain.lastValidBlockHeight(hash) !== null);
      },
      getMinimumBalanceForRentExemption: (p) => {
        const size = u64(p[0], 'data length');
        if (size > 10n * 1024n * 1024n) throw invalidParams('Invalid params: data length too large');
        return this.chain.minimumBalanceForRentExemption(size);
      },
      getFeeForMessage: (p) => this.getFeeForMessage(p),
      getBalance: (p) => {
        const key = pubkey(str(p, 0, 'pubkey'));
        this.ctxCheck(config(p, 1));
        return this.ctx(this.chain.getBalance(key));
      },
      getAccountInfo: (p) => {
        const key = pubkey(str(p, 0, 'pubkey'));
        const c = config(p, 1);
        this.ctxCheck(c);
        return this.ctx(this.account(key, accountEncoding(c), dataSlice(c)));
      },
      getMultipleAccounts: (p) => {
        const keys = p[0];
        if (!Array.isArray(keys) || keys.some((k) => typeof k !== 'string')) throw invalidParams('Invalid params: expected an array of pubkeys');
        if (keys.length > MAX_MULTIPLE_ACCOUNTS) throw invalidParams(`Too many inputs provided; max ${MAX_MULTIPLE_ACCOUNTS}`);
        const c = config(p, 1);
        this.ctxCheck(c);
        const enc = accountEncoding(c);
        const slice = dataSlice(c);
        return this.ctx(keys.map((k: string) => this.account(pubkey(k), enc, slice)));
      },
      getTokenAccountBalance: (p) => {
        const key = pubkey(str(p, 0, 'pubkey'));
        this.ctxCheck(config(p, 1));
        const acct = this.chain.getAccount(key);
        if (!acct) throw invalidParams('Invalid param: could not find account');
        const owner = base58.encode(acct.owner());
        const t = isTokenProgram(owner) && isTokenAccountData(acct.data(), owner === TOKEN_2022_PROGRAM) ? decodeTokenAccount(acct.data()) : null;
        if (!t) throw invalidParams('Invalid param: not a Token account');
        const decimals = this.chain.mintDecimals(t.mint);
        if (decimals === null) throw invalidParams('Invalid param: could not find mint');
        return this.ctx(uiTokenAmount(t.amount, decimals));
      },
      getTokenSupply: (p) => {
        const key = pubkey(str(p, 0, 'mint'));
        this.ctxCheck(config(p, 1));
        const acct = this.chain.getAccount(key);
        const m = acct && isTokenProgram(base58.encode(acct.owner())) ? decodeMint(acct.data()) : null;
        if (!m?.isInitialized) throw invalidParams('Invalid param: not a Token mint');
        return this.ctx(uiTokenAmount(m.supply, m.decimals));
      },
      getTokenAccountsByOwner: (p) => this.getTokenAccountsByOwner(p),
      requestAirdrop: (p) => {
        const to = pubkey(str(p, 0, 'pubkey'));
        const lamports = u64(p[1], 'lamports');
        if (lamports === 0n) throw invalidParams('Invalid params: lamports must be greater than 0');
        const tx = decodeTransaction(this.chain.airdropTransaction(to, lamports));
        try {
          return this.submit(tx, false);
        } catch (e) {
          if (e instanceof RpcError) throw new RpcError(-32603, `airdrop request failed: ${e.message}`);
          throw e;
        }
      },
      sendTransaction: (p) => {
        const encoded = str(p, 0, 'transaction');
        const c = config(p, 1);
        this.ctxCheck(c);
        const tx = decodeWire(encoded, optString(c, 'encoding') ?? 'base58');
        return this.submit(tx, optBool(c, 'skipPreflight'));
      },
      simulateTransaction: (p) => this.simulateTransaction(p),
      getSignatureStatuses: (p) => {
        const sigs = p[0];
        if (!Array.isArray(sigs) || sigs.some((s) => typeof s !== 'string')) throw invalidParams('Invalid params: expected an array of signatures');
        if (sigs.length > MAX_SIGNATURE_STATUSES) throw invalidParams(`Too many inputs provided; max ${MAX_SIGNATURE_STATUSES}`);
        config(p, 1);
        return this.ctx(
          sigs.map((s: string) => {
            const st = this.history.status(signature(s));
            if (!st) return null;
            return { slot: BigInt(st.slot), confirmations: null, err: st.err, status: statusOf(st.err), confirmationStatus: 'finalized' };
          }),
        );
      },
      getSignaturesForAddress: (p) => {
        const key = pubkey(str(p, 0, 'address'));
        const c = config(p, 1);
        this.commitmentAtLeastConfirmed(c);
        this.ctxCheck(c);
        const limit = optU64(c.limit, 'limit') ?? BigInt(MAX_SIGNATURES_FOR_ADDRESS);
        if (limit < 1n || limit > BigInt(MAX_SIGNATURES_FOR_ADDRESS)) throw invalidParams(`Invalid limit; max ${MAX_SIGNATURES_FOR_ADDRESS}`);
        const before = optString(c, 'before');
        const until = optString(c, 'until');
        if (before !== undefined) signature(before);
        if (until !== undefined) signature(until);
        return this.history.signaturesFor(key, Number(limit), before, until).map((s) => ({
          signature: s.signature,
          slot: BigInt(s.slot),
          err: s.err,
          memo: s.memo,
          blockTime: BigInt(s.blockTime),
          confirmationStatus: 'finalized',
        }));
      },
      getTransaction: async (p) => {
        const sig = signature(str(p, 0, 'signature'));
        let encoding: string = 'json';
        let maxVersion: number | undefined;
        if (typeof p[1] === 'string') {
          encoding = p[1];
        } else {
          const c = config(p, 1);
          this.commitmentAtLeastConfirmed(c);
          encoding = optString(c, 'encoding') ?? 'json';
          const mv = c.maxSupportedTransactionVersion;
          if (mv !== undefined && mv !== null) {
            if (mv !== 0) throw invalidParams('Invalid params: maxSupportedTransactionVersion must be 0');
            maxVersion = 0;
          }
        }
        if (encoding !== 'json' && encoding !== 'jsonParsed' && encoding !== 'base64' && encoding !== 'base58') {
          throw invalidParams(`Invalid params: unsupported encoding: ${encoding}`);
        }
        const rec = await this.history.get(sig);
        return rec ? renderTransaction(rec, encoding as TxEncoding, maxVersion) : null;
      },
    };
  }

  private ctx(value: Json): Obj {
    return { context: { apiVersion: SOLANA_CORE_VERSION, slot: this.chain.slot }, value };
  }

  /** minContextSlot support; returns undefined so callers can chain with `??`. */
  private ctxCheck(c: Record<string, unknown>): undefined {
    const min = optU64(c.minContextSlot, 'minContextSlot');
    if (min !== undefined && min > this.chain.slot) {
      throw new RpcError(-32016, 'Minimum context slot has not been reached', { contextSlot: this.chain.slot });
    }
    return undefined;
  }

  private commitmentAtLeastConfirmed(c: Record<string, unknown>): void {
    if (c.commitment === 'processed') throw invalidParams('Method does not support commitment below `confirmed`');
  }

  private account(key: string, encoding: AccountEncoding, slice: DataSlice | undefined): Json {
    const acct = this.chain.getAccount(key);
    return acct ? renderAccount(acct, encoding, slice, this.chain.mintDecimals) : null;
  }

  private getFeeForMessage(p: Params): Json {
    const encoded = str(p, 0, 'message');
    this.ctxCheck(config(p, 1));
    if (encoded.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(encoded)) throw invalidParams('invalid base64 encoding: InvalidByte');
    let message: ReturnType<typeof decodeMessage>['message'];
    try {
      message = decodeMessage(new Uint8Array(Buffer.from(encoded, 'base64'))).message;
    } catch (e) {
      if (e instanceof WireError) throw invalidParams(`failed to deserialize solana_message::VersionedMessage: ${e.message}`);
      throw e;
    }
    if (this.chain.lastValidBlockHeight(message.recentBlockhash) === null) return this.ctx(null);
    return this.ctx(feeForMessage(message));
  }

  private getTokenAccountsByOwner(p: Params): Json {
    const owner = pubkey(str(p, 0, 'owner'));
    const filter = p[1];
    if (!isObj(filter)) throw invalidParams('Invalid params: expected a filter');
    const c = config(p, 2);
    this.ctxCheck(c);
    const enc = accountEncoding(c);
    const slice = dataSlice(c);
    let mint: string | undefined;
    let programs: string[];
    if (typeof filter.mint === 'string') {
      mint = pubkey(filter.mint);
      const m = this.chain.getAccount(mint);
      programs = m ? [base58.encode(m.owner())] : [];
    } else if (typeof filter.programId === 'string') {
      programs = [pubkey(filter.programId)];
    } else {
      throw invalidParams('Invalid params: filter must be { mint } or { programId }');
    }
    if (programs.some((x) => !isTokenProgram(x))) throw invalidParams('Invalid param: unrecognized Token program id');
    const ownerBytes = base58.decode(owner);
    const out: Json[] = [];
    for (const program of programs) {
      for (const entry of this.chain.svm.getProgramAccounts(base58.decode(program))) {
        const acct = entry.account();
        const data = acct.data();
        if (!isTokenAccountData(data, program === TOKEN_2022_PROGRAM)) continue;
        if (!Buffer.from(data.subarray(32, 64)).equals(Buffer.from(ownerBytes))) continue;
        const pub = base58.encode(entry.address);
        if (mint !== undefined && base58.encode(data.subarray(0, 32)) !== mint) continue;
        out.push({ pubkey: pub, account: renderAccount(acct, enc, slice, this.chain.mintDecimals) });
      }
    }
    return this.ctx(out);
  }

  /**
   * Shared by sendTransaction and requestAirdrop: preflight, execute, record. Signatures are verified natively by
   * litesvm (several times faster than node:crypto), once per transaction: in the preflight simulation, or in the
   * execution itself under skipPreflight, where a bad signature makes the runtime drop the transaction unpaid.
   */
  private submit(tx: Transaction, skipPreflight: boolean): string {
    const sig = signatureString(tx);
    const badSignature = new RpcError(-32003, 'Transaction signature verification failure');
    // The real node verifies signatures before anything else; only these rare early exits need it done up front.
    const earlyFailure = (err: TxErr): string => {
      if (skipPreflight) return sig;
      throw verifyAll(tx) ? preflightFailure(err) : badSignature;
    };
    if (this.history.has(sig)) return earlyFailure('AlreadyProcessed');
    if (this.chain.lastValidBlockHeight(tx.message.recentBlockhash) === null) return earlyFailure('BlockhashNotFound');
    const loaded = tx.message.version === 0 ? this.chain.resolveLookups(tx.message) : EMPTY_LOADED;
    if (typeof loaded === 'string') return earlyFailure(loaded);
    if (!skipPreflight) {
      const sim = this.chain.simulate(tx, tx.bytes, true);
      if (sim.err === 'SignatureFailure') throw badSignature;
      if (sim.err !== null) throw preflightFailure(sim.err, sim);
    }
    const keys = allKeys(tx.message, loaded);
    const res = this.chain.execute(tx, keys, skipPreflight);
    if (!res.landed) {
      this.log.info({ signature: sig, err: res.err }, 'localnet: transaction dropped (rejected before fee)');
      return sig;
    }
    this.history.append(this.record(tx, sig, loaded, res));
    this.onChange();
    return sig;
  }

  private record(tx: Transaction, sig: string, loaded: LoadedAddresses, res: LandedResult): TxRecord {
    return {
      signature: sig,
      slot: Number(this.chain.slot),
      blockTime: Math.floor(Date.now() / 1000),
      wire: Buffer.from(tx.bytes).toString('base64'),
      err: res.err,
      fee: res.fee.toString(),
      preBalances: res.preBalances.map(String),
      postBalances: res.postBalances.map(String),
      preTokenBalances: res.preTokenBalances,
      postTokenBalances: res.postTokenBalances,
      logs: res.logs,
      innerInstructions: res.innerInstructions
        .map((list, index) => ({
          index,
          instructions: list.map((ii) => ({
            programIdIndex: ii.programIdIndex,
            accounts: ii.accounts,
            data: base58.encode(ii.data),
            stackHeight: ii.stackHeight,
          })),
        }))
        .filter((e) => e.instructions.length > 0),
      unitsConsumed: Number(res.unitsConsumed),
      loadedAddresses: loaded,
      returnData: res.returnData ? { programId: res.returnData.programId, data: Buffer.from(res.returnData.data).toString('base64') } : null,
      memo: memoOf(tx),
    };
  }

  /** Re-execute a recorded transaction after a crash left it out of the snapshot. */
  replay(rec: TxRecord): void {
    const tx = decodeTransaction(Buffer.from(rec.wire, 'base64'));
    this.chain.fastForwardTo(BigInt(rec.slot));
    const res = this.chain.execute(tx, allKeys(tx.message, rec.loadedAddresses), false);
    if ((res.err === null) !== (rec.err === null)) {
      this.log.warn({ signature: rec.signature, recorded: rec.err, replayed: res.err }, 'localnet: replayed transaction diverged');
    }
  }

  private simulateTransaction(p: Params): Json {
    const encoded = str(p, 0, 'transaction');
    const c = config(p, 1);
    this.ctxCheck(c);
    const sigVerify = optBool(c, 'sigVerify');
    const replace = optBool(c, 'replaceRecentBlockhash');
    if (sigVerify && replace) throw invalidParams('sigVerify may not be used with replaceRecentBlockhash');
    const tx = decodeWire(encoded, optString(c, 'encoding') ?? 'base58');
    const badSignature = new RpcError(-32003, 'Transaction signature verification failure');

    let accountsCfg: { addresses: string[]; encoding: AccountEncoding } | null = null;
    const ac = c.accounts;
    if (ac !== undefined && ac !== null) {
      if (!isObj(ac) || !Array.isArray(ac.addresses) || ac.addresses.some((a) => typeof a !== 'string')) {
        throw invalidParams('Invalid params: invalid accounts config');
      }
      const enc = accountEncoding(ac);
      if (enc === 'binary' || enc === 'base58') throw invalidParams('base58 encoding not supported');
      accountsCfg = { addresses: (ac.addresses as string[]).map(pubkey), encoding: enc };
    }

    let bytes = tx.bytes;
    let replacement: Json = null;
    if (replace) {
      bytes = new Uint8Array(tx.bytes);
      const at = tx.bytes.length - tx.messageBytes.length + tx.message.blockhashOffset;
      bytes.set(base58.decode(this.chain.latestBlockhash), at);
      replacement = { blockhash: this.chain.latestBlockhash, lastValidBlockHeight: this.chain.latestLastValidBlockHeight() };
    }

    const fail = (err: TxErr): Obj => {
      if (sigVerify && !verifyAll(tx)) throw badSignature;
      return this.ctx({ err, logs: [], accounts: null, unitsConsumed: 0n, returnData: null, innerInstructions: null, replacementBlockhash: replacement });
    };
    if (!replace && this.chain.lastValidBlockHeight(tx.message.recentBlockhash) === null) return fail('BlockhashNotFound');
    const loaded = tx.message.version === 0 ? this.chain.resolveLookups(tx.message) : EMPTY_LOADED;
    if (typeof loaded === 'string') return fail(loaded);

    const sim = this.chain.simulate(tx, bytes, sigVerify);
    if (sim.err === 'SignatureFailure' && sigVerify) throw badSignature;
    const keys = allKeys(tx.message, loaded);
    let accounts: Json = null;
    if (accountsCfg) {
      const enc = accountsCfg.encoding;
      accounts = accountsCfg.addresses.map((a) => {
        const acct = sim.err === null ? (sim.postAccounts.get(a) ?? this.chain.getAccount(a)) : this.chain.getAccount(a);
        return acct ? renderAccount(acct, enc, undefined, this.chain.mintDecimals) : null;
      });
    }
    return this.ctx({
      err: sim.err,
      logs: sim.logs,
      accounts,
      unitsConsumed: sim.unitsConsumed,
      returnData: returnDataJson(sim.returnData),
      innerInstructions: optBool(c, 'innerInstructions') ? renderInnerInstructions(sim.innerInstructions, keys) : null,
      replacementBlockhash: replacement,
    });
  }
}
