// SPL Token (and Token-2022 base) account/mint layouts and the RPC's UI amount formatting.
import { base58 } from '@scure/base';
import { F64, type Json } from './json.ts';

export const TOKEN_ACCOUNT_SIZE = 165;
export const MINT_SIZE = 82;
export const MULTISIG_SIZE = 355;
// Token-2022 puts an AccountType byte right after the 165-byte base for extended accounts.
const ACCOUNT_TYPE_MINT = 1;
const ACCOUNT_TYPE_ACCOUNT = 2;

export interface TokenAccount {
  mint: string;
  owner: string;
  amount: bigint;
  delegate: string | null;
  state: 'uninitialized' | 'initialized' | 'frozen';
  isNative: bigint | null;
  delegatedAmount: bigint;
  closeAuthority: string | null;
}

export interface Mint {
  mintAuthority: string | null;
  supply: bigint;
  decimals: number;
  isInitialized: boolean;
  freezeAuthority: string | null;
}

const u64 = (d: Uint8Array, o: number): bigint => new DataView(d.buffer, d.byteOffset, d.byteLength).getBigUint64(o, true);
const u32 = (d: Uint8Array, o: number): number => new DataView(d.buffer, d.byteOffset, d.byteLength).getUint32(o, true);
const key = (d: Uint8Array, o: number): string => base58.encode(d.subarray(o, o + 32));
const optKey = (d: Uint8Array, o: number): string | null => (u32(d, o) === 1 ? key(d, o + 4) : null);

export function isTokenAccountData(data: Uint8Array, programIs2022: boolean): boolean {
  if (data.length === TOKEN_ACCOUNT_SIZE) return true;
  return programIs2022 && data.length > TOKEN_ACCOUNT_SIZE && data[TOKEN_ACCOUNT_SIZE] === ACCOUNT_TYPE_ACCOUNT;
}

export function isMintData(data: Uint8Array, programIs2022: boolean): boolean {
  if (data.length === MINT_SIZE) return true;
  return programIs2022 && data.length > TOKEN_ACCOUNT_SIZE && data[TOKEN_ACCOUNT_SIZE] === ACCOUNT_TYPE_MINT;
}

export function decodeTokenAccount(data: Uint8Array): TokenAccount | null {
  if (data.length < TOKEN_ACCOUNT_SIZE) return null;
  const stateByte = data[108];
  if (stateByte === undefined || stateByte > 2) return null;
  return {
    mint: key(data, 0),
    owner: key(data, 32),
    amount: u64(data, 64),
    delegate: optKey(data, 72),
    state: stateByte === 0 ? 'uninitialized' : stateByte === 1 ? 'initialized' : 'frozen',
    isNative: u32(data, 109) === 1 ? u64(data, 113) : null,
    delegatedAmount: u64(data, 121),
    closeAuthority: optKey(data, 129),
  };
}

export function decodeMint(data: Uint8Array): Mint | null {
  if (data.length < MINT_SIZE) return null;
  return {
    mintAuthority: optKey(data, 0),
    supply: u64(data, 36),
    decimals: data[44] ?? 0,
    isInitialized: data[45] === 1,
    freezeAuthority: optKey(data, 46),
  };
}

export function decodeMultisig(data: Uint8Array): Json | null {
  if (data.length !== MULTISIG_SIZE) return null;
  const m = data[0] ?? 0;
  const n = data[1] ?? 0;
  const signers: string[] = [];
  for (let i = 0; i < n && i < 11; i++) signers.push(key(data, 3 + 32 * i));
  return { numRequiredSigners: m, numValidSigners: n, isInitialized: data[2] === 1, signers };
}

/** Agave's `real_number_string_trimmed`. */
export function uiAmountString(amount: bigint, decimals: number): string {
  if (decimals === 0) return amount.toString();
  const s = amount.toString().padStart(decimals + 1, '0');
  const whole = s.slice(0, s.length - decimals);
  const frac = s.slice(s.length - decimals).replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : whole;
}

export function uiTokenAmount(amount: bigint, decimals: number): { [k: string]: Json } {
  return {
    amount: amount.toString(),
    decimals,
    uiAmount: new F64(Number(amount) / 10 ** decimals),
    uiAmountString: uiAmountString(amount, decimals),
  };
}
