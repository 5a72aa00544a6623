// LiteSVM wrapper: slot/block-height/blockhash bookkeeping, transaction execution with the metadata the RPC reports.
import { createHash, randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';
import * as svmTypes from 'litesvm/dist/internal.js';
import { keypairFromSeed, type Keypair } from './ed25519.ts';
import { txErrorFromSvm, type TxErr } from './errors.ts';
import {
  ADDRESS_LOOKUP_TABLE_PROGRAM,
  BPF_LOADER_UPGRADEABLE,
  MEMO_V1_PROGRAM,
  MEMO_V2_PROGRAM,
  RESERVED_KEYS,
  SYSTEM_PROGRAM,
  TOKEN_2022_PROGRAM,
  isTokenProgram,
} from './programs.ts';
import { decodeMint, decodeTokenAccount, isTokenAccountData } from './token.ts';
import { isStaticWritable, type Message, type Transaction } from './wire.ts';

const { LiteSvm, Clock, Account, FailedTransactionMetadata } = svmTypes;
type LiteSvm = svmTypes.LiteSvm;

/** Agave's MAX_PROCESSING_AGE: a blockhash is usable for this many blocks after the one that produced it. */
export const BLOCKHASH_LIFETIME = 150n;
const FAUCET_LAMPORTS = 500_000_000n * 1_000_000_000n;
const MINIMUM_SLOTS_PER_EPOCH = 32n;
const LOOKUP_TABLE_META_SIZE = 56;

export interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  amount: string;
  decimals: number;
}

export interface InnerIx {
  programIdIndex: number;
  accounts: number[];
  data: Uint8Array;
  stackHeight: number;
}

export interface LoadedAddresses {
  writable: string[];
  readonly: string[];
}

export interface ExecResult {
  err: TxErr | null;
  logs: string[];
  unitsConsumed: bigint;
  /** Indexed by top-level instruction. */
  innerInstructions: InnerIx[][];
  returnData: { programId: string; data: Uint8Array } | null;
}

export interface LandedResult extends ExecResult {
  /** False when the runtime rejected the transaction before charging a fee: it never lands. */
  landed: boolean;
  fee: bigint;
  preBalances: bigint[];
  postBalances: bigint[];
  preTokenBalances: TokenBalance[];
  postTokenBalances: TokenBalance[];
}

export interface SimResult extends ExecResult {
  postAccounts: Map<string, svmTypes.Account>;
}

export interface ChainState {
  slot: number;
  blockHeight: number;
  latestBlockhash: string;
  /** [blockhash, lastValidBlockHeight], oldest first. */
  blockhashes: [string, number][];
  genesisHash: string;
  faucetSeed: string;
}

export interface EpochInfo {
  epoch: bigint;
  slotIndex: bigint;
  slotsInEpoch: bigint;
}

export class Chain {
  slot: bigint;
  blockHeight: bigint;
  latestBlockhash: string;
  readonly genesisHash: string;
  readonly faucet: Keypair;
  private readonly faucetSeed: Uint8Array;
  private readonly blockhashes = new Map<string, bigint>();
  private clockSlot = -1n;
  private clockTime = -1n;

  private constructor(
    readonly svm: LiteSvm,
    state: ChainState,
  ) {
    this.slot = BigInt(state.slot);
    this.blockHeight = BigInt(state.blockHeight);
    this.latestBlockhash = state.latestBlockhash;
    for (const [hash, lastValid] of state.blockhashes) this.blockhashes.set(hash, BigInt(lastValid));
    this.genesisHash = state.genesisHash;
    this.faucetSeed = Buffer.from(state.faucetSeed, 'hex');
    this.faucet = keypairFromSeed(this.faucetSeed);
    // Runtime settings are not part of litesvm's serialized state; apply them on every start.
    // Blockhash lifetimes and duplicate detection are ours (litesvm only knows one blockhash, and keeps no history).
    svm.setBlockhashCheck(false);
    svm.setSigverify(true);
    svm.setTransactionHistory(0n);
  }

  static genesis(): Chain {
    const svm = new LiteSvm();
    reloadMemoPrograms(svm);
    const genesisHash = base58.encode(randomBytes(32));
    const faucetSeed = randomBytes(32);
    const chain = new Chain(svm, {
      slot: 0,
      blockHeight: 0,
      latestBlockhash: genesisHash,
      blockhashes: [[genesisHash, Number(BLOCKHASH_LIFETIME)]],
      genesisHash,
      faucetSeed: faucetSeed.toString('hex'),
    });
    svm.setAccount(chain.faucet.publicKey, new Account(FAUCET_LAMPORTS, new Uint8Array(0), new Uint8Array(32), false, 0n));
    return chain;
  }

  static restore(svmBytes: Uint8Array, state: ChainState): Chain {
    return new Chain(LiteSvm.fromBytes(svmBytes), state);
  }

  exportState(): ChainState {
    return {
      slot: Number(this.slot),
      blockHeight: Number(this.blockHeight),
      latestBlockhash: this.latestBlockhash,
      blockhashes: [...this.blockhashes].map(([h, v]) => [h, Number(v)]),
      genesisHash: this.genesisHash,
      faucetSeed: Buffer.from(this.faucetSeed).toString('hex'),
    };
  }

  /** Produce the next block: slot and block height advance, a new blockhash becomes the latest. */
  tick(): void {
    this.slot += 1n;
    this.blockHeight += 1n;
    const h = createHash('sha256').update(this.latestBlockhash).update(this.slot.toString()).digest();
    this.latestBlockhash = base58.encode(h);
    this.blockhashes.set(this.latestBlockhash, this.blockHeight + BLOCKHASH_LIFETIME);
    for (const [hash, lastValid] of this.blockhashes) {
      if (lastValid >= this.blockHeight) break;
      this.blockhashes.delete(hash);
    }
  }

  /**
   * Keeps slot and block height monotonic across restarts when history is ahead of the snapshot. The blocks are made
   * again one by one, so the blockhashes handed out before a crash are valid after it, as on a real cluster.
   */
  fastForwardTo(slot: bigint): void {
    while (this.slot < slot) this.tick();
  }

  lastValidBlockHeight(blockhash: string): bigint | null {
    const v = this.blockhashes.get(blockhash);
    return v !== undefined && v >= this.blockHeight ? v : null;
  }

  latestLastValidBlockHeight(): bigint {
    return this.blockHeight + BLOCKHASH_LIFETIME;
  }

  epochInfo(slot: bigint = this.slot): EpochInfo {
    const s = this.svm.getEpochSchedule();
    if (s.warmup && slot < s.firstNormalSlot) {
      const minLog = 5n; // log2(MINIMUM_SLOTS_PER_EPOCH)
      let pow = 1n;
      let log = 0n;
      while (pow < slot + MINIMUM_SLOTS_PER_EPOCH + 1n) {
        pow <<= 1n;
        log += 1n;
      }
      const epoch = log - minLog - 1n;
      const slotsInEpoch = 1n << (epoch + minLog);
      return { epoch, slotIndex: slot - (slotsInEpoch - MINIMUM_SLOTS_PER_EPOCH), slotsInEpoch };
    }
    const normal = slot - s.firstNormalSlot;
    return { epoch: s.firstNormalEpoch + normal / s.slotsPerEpoch, slotIndex: normal % s.slotsPerEpoch, slotsInEpoch: s.slotsPerEpoch };
  }

  getAccount(address: string): svmTypes.Account | null {
    return this.svm.getAccount(base58.decode(address));
  }

  getBalance(address: string): bigint {
    return this.svm.getBalance(base58.decode(address)) ?? 0n;
  }

  minimumBalanceForRentExemption(size: bigint): bigint {
    return this.svm.minimumBalanceForRentExemption(size);
  }

  mintDecimals = (mint: string): number | null => {
    const acct = this.getAccount(mint);
    if (!acct || !isTokenProgram(base58.encode(acct.owner()))) return null;
    const m = decodeMint(acct.data());
    return m?.isInitialized ? m.decimals : null;
  };

  /** Resolve a v0 message's lookup tables against current state. */
  resolveLookups(m: Message): LoadedAddresses | string {
    const writable: string[] = [];
    const readonly: string[] = [];
    for (const l of m.lookups) {
      const acct = this.getAccount(l.accountKey);
      if (!acct) return 'AddressLookupTableNotFound';
      if (base58.encode(acct.owner()) !== ADDRESS_LOOKUP_TABLE_PROGRAM) return 'InvalidAddressLookupTableOwner';
      const data = acct.data();
      if (data.length < LOOKUP_TABLE_META_SIZE || (data.length - LOOKUP_TABLE_META_SIZE) % 32 !== 0) return 'InvalidAddressLookupTableData';
      const count = (data.length - LOOKUP_TABLE_META_SIZE) / 32;
      const at = (i: number): string | null =>
        i < count ? base58.encode(data.subarray(LOOKUP_TABLE_META_SIZE + 32 * i, LOOKUP_TABLE_META_SIZE + 32 * i + 32)) : null;
      for (const i of l.writableIndexes) {
        const k = at(i);
        if (k === null) return 'InvalidAddressLookupTableIndex';
        writable.push(k);
      }
      for (const i of l.readonlyIndexes) {
        const k = at(i);
        if (k === null) return 'InvalidAddressLookupTableIndex';
        readonly.push(k);
      }
    }
    return { writable, readonly };
  }

  private syncClock(): void {
    const now = BigInt(Math.floor(Date.now() / 1000));
    if (this.clockSlot === this.slot && this.clockTime === now) return;
    const { epoch } = this.epochInfo();
    this.svm.setClock(new Clock(this.slot, now, epoch, epoch + 1n, now));
    this.clockSlot = this.slot;
    this.clockTime = now;
  }

  private tokenBalances(keys: string[], invoked: Set<number>): TokenBalance[] {
    const out: TokenBalance[] = [];
    for (let i = 0; i < keys.length; i++) {
      if (invoked.has(i)) continue;
      const key = keys[i];
      if (key === undefined) continue;
      const acct = this.getAccount(key);
      if (!acct) continue;
      const programId = base58.encode(acct.owner());
      if (!isTokenProgram(programId)) continue;
      const data = acct.data();
      if (!isTokenAccountData(data, programId === TOKEN_2022_PROGRAM)) continue;
      const t = decodeTokenAccount(data);
      if (!t || t.state === 'uninitialized') continue;
      const decimals = this.mintDecimals(t.mint);
      if (decimals === null) continue;
      out.push({ accountIndex: i, mint: t.mint, owner: t.owner, programId, amount: t.amount.toString(), decimals });
    }
    return out;
  }

  /** Execute for real. `keys` are the static keys followed by loaded writable then readonly addresses. */
  execute(tx: Transaction, keys: string[], sigverify: boolean): LandedResult {
    this.syncClock();
    this.svm.setSigverify(sigverify);
    const keyBytes = keys.map((k) => base58.decode(k));
    const invoked = new Set(tx.message.instructions.map((ix) => ix.programIdIndex));
    const preBalances = keyBytes.map((k) => this.svm.getBalance(k) ?? 0n);
    const preTokenBalances = this.tokenBalances(keys, invoked);
    const r = tx.message.version === 'legacy' ? this.svm.sendLegacyTransaction(tx.bytes) : this.svm.sendVersionedTransaction(tx.bytes);
    const failed = r instanceof FailedTransactionMetadata;
    const meta = failed ? r.meta() : r;
    const postBalances = keyBytes.map((k) => this.svm.getBalance(k) ?? 0n);
    const charged = !failed || (postBalances[0] ?? 0n) < (preBalances[0] ?? 0n);
    const postTokenBalances = charged ? this.tokenBalances(keys, invoked) : preTokenBalances;
    return {
      ...execResult(meta, failed ? txErrorFromSvm(r.err()) : null),
      landed: charged,
      fee: charged ? feeOf(meta, (preBalances[0] ?? 0n) - (postBalances[0] ?? 0n)) : 0n,
      preBalances,
      postBalances,
      preTokenBalances,
      postTokenBalances,
    };
  }

  /** Simulate without touching state. A bad signature comes back as the `SignatureFailure` error when `sigverify`. */
  simulate(tx: Transaction, bytes: Uint8Array, sigverify: boolean): SimResult {
    this.syncClock();
    this.svm.setSigverify(sigverify);
    const r = tx.message.version === 'legacy' ? this.svm.simulateLegacyTransaction(bytes) : this.svm.simulateVersionedTransaction(bytes);
    if (r instanceof FailedTransactionMetadata) return { ...execResult(r.meta(), txErrorFromSvm(r.err())), postAccounts: new Map() };
    const postAccounts = new Map<string, svmTypes.Account>();
    for (const a of r.postAccounts()) postAccounts.set(base58.encode(a.address), a.account());
    return { ...execResult(r.meta(), null), postAccounts };
  }

  /** Wire bytes of a faucet transfer, signed, using the latest blockhash. */
  airdropTransaction(to: string, lamports: bigint): Uint8Array {
    const faucet = base58.encode(this.faucet.publicKey);
    const keys = to === faucet ? [faucet, SYSTEM_PROGRAM] : [faucet, to, SYSTEM_PROGRAM];
    const data = new Uint8Array(12);
    const view = new DataView(data.buffer);
    view.setUint32(0, 2, true);
    view.setBigUint64(4, lamports, true);
    const toIndex = to === faucet ? 0 : 1;
    const msg: number[] = [1, 0, 1, keys.length];
    for (const k of keys) msg.push(...base58.decode(k));
    msg.push(...base58.decode(this.latestBlockhash));
    msg.push(1, keys.length - 1, 2, 0, toIndex, data.length, ...data);
    const message = Uint8Array.from(msg);
    const sig = this.faucet.sign(message);
    const out = new Uint8Array(1 + 64 + message.length);
    out[0] = 1;
    out.set(sig, 1);
    out.set(message, 65);
    return out;
  }

  toBytes(): Uint8Array {
    return this.svm.toBytes();
  }
}

/** Agave's `is_writable`, including demotion of reserved keys and of invoked programs. */
export function isWritable(m: Message, index: number, loaded: LoadedAddresses): boolean {
  const nStatic = m.staticKeys.length;
  let writable: boolean;
  let key: string | undefined;
  if (index < nStatic) {
    writable = isStaticWritable(m, index);
    key = m.staticKeys[index];
  } else {
    writable = index - nStatic < loaded.writable.length;
    key = writable ? loaded.writable[index - nStatic] : loaded.readonly[index - nStatic - loaded.writable.length];
  }
  if (!writable || key === undefined) return false;
  if (RESERVED_KEYS.has(key)) return false;
  const isInvoked = m.instructions.some((ix) => ix.programIdIndex === index);
  return !(isInvoked && !m.staticKeys.includes(BPF_LOADER_UPGRADEABLE));
}

function execResult(meta: svmTypes.TransactionMetadata, err: TxErr | null): ExecResult {
  const rd = meta.returnData();
  const rdData = rd.data();
  return {
    err,
    logs: meta.logs(),
    unitsConsumed: meta.computeUnitsConsumed(),
    innerInstructions: meta.innerInstructions().map((list) =>
      list.map((ii) => {
        const ci = ii.instruction();
        return { programIdIndex: ci.programIdIndex(), accounts: Array.from(ci.accounts()), data: ci.data(), stackHeight: ii.stackHeight() };
      }),
    ),
    returnData: rdData.length > 0 ? { programId: base58.encode(rd.programId()), data: rdData } : null,
  };
}

// litesvm's JS binding exposes the charged fee only through its Debug text.
function feeOf(meta: svmTypes.TransactionMetadata, fallback: bigint): bigint {
  const m = /fee: (\d+) \}[ })]*$/.exec(meta.toString());
  return m?.[1] !== undefined ? BigInt(m[1]) : fallback;
}

/**
 * Re-adding the memo programs from their own bytes: reported to be needed on some litesvm 1.5.0 builds
 * (InvalidProgramForExecution as loaded). Keeps each program's original loader so getAccountInfo stays realistic.
 */
function reloadMemoPrograms(svm: LiteSvm): void {
  for (const id of [MEMO_V2_PROGRAM, MEMO_V1_PROGRAM]) {
    const key = base58.decode(id);
    const acct = svm.getAccount(key);
    if (!acct?.executable()) continue;
    try {
      svm.addProgramWithLoader(key, acct.data(), acct.owner());
    } catch {
      // Loader v1 cannot be re-added on every build; the program as loaded still works then.
    }
  }
}
