// On-chain memo texts (design §3). Parsing is strict: a memo counts only in exactly these shapes.
import type { Hex32 } from './hex32.ts';
export const MEMO_PREFIX = 'pfws:v1:';
/** SPL Memo v2. @solana-program/memo 0.15 defaults to another address, so always name this one. */
export const MEMO_PROGRAM_ID = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';

export const setupMemo = (wallet: string, sessionPubkey: string): string => `pfws:v1:setup:${wallet}:${sessionPubkey}`;
export const revokeMemo = (wallet: string, sessionPubkey: string): string => `pfws:v1:revoke:${wallet}:${sessionPubkey}`;
export const depositMemo = (wallet: string): string => `pfws:v1:deposit:${wallet}`;
export const rngHeadMemo = (chainId: number, headHex: string): string => `pfws:v1:rng-head:${chainId}:${headHex}`;
export const walletRevealMemo = (betPayloadHash: string, clientSeedRaw: string): string => `pfws:v1:reveal:${betPayloadHash}:${clientSeedRaw}`;
export const withdrawMemo = (withdrawalId: string): string => `pfws:v1:withdraw:${withdrawalId}`;
export const lpDepositMemo = (wallet: string): string => `pfws:v1:lp-deposit:${wallet}`;
export const lpRedeemMemo = (wallet: string): string => `pfws:v1:lp-redeem:${wallet}`;
/** Keeper memos marking an LP job as done on-chain, so a keeper restart finds it instead of doing it twice. */
export const lpMintMemo = (jobId: string): string => `pfws:v1:lp-mint:${jobId}`;
export const lpPayMemo = (jobId: string): string => `pfws:v1:lp-pay:${jobId}`;
/**
 * An x402 top-up names its payer: x402's exact scheme adds it as a memo with no signer accounts, which the payer's
 * signature (as the transfer authority) still covers. The nonce keeps two top-ups of the same amount distinct.
 */
export const x402Memo = (wallet: string, nonceHex: string): string => `pfws:v1:x402:${wallet}:${nonceHex}`;

export interface CommitMemo {
  entryCount: number;
  betLogRoot: string;
  stateRoot: string;
  totalLiabilities: bigint;
  rngIndex: number;
  rngRevealHex: string;
  manifestHash: string;
}

export const commitMemo = (c: CommitMemo): string =>
  `pfws:v1:commit:${c.entryCount}:${c.betLogRoot}:${c.stateRoot}:${c.totalLiabilities}:${c.rngIndex}:${c.rngRevealHex}:${c.manifestHash}`;

const B58 = '[1-9A-HJ-NP-Za-km-z]{32,44}';
const HEX32 = '[0-9a-f]{64}';
const UINT = '(?:0|[1-9]\\d{0,18})';

export type ParsedMemo =
  | { kind: 'setup' | 'revoke'; wallet: string; sessionPubkey: string }
  | { kind: 'deposit' | 'lp-deposit' | 'lp-redeem'; wallet: string }
  | { kind: 'reveal'; betPayloadHash: Hex32; clientSeedRaw: string }
  | { kind: 'rng-head'; chainId: number; headHex: string }
  | ({ kind: 'commit' } & CommitMemo)
  | { kind: 'withdraw'; withdrawalId: string }
  | { kind: 'lp-mint' | 'lp-pay'; jobId: string }
  | { kind: 'x402'; wallet: string; nonceHex: string };

const PATTERNS: [RegExp, (m: RegExpExecArray) => ParsedMemo][] = [
  [new RegExp(`^pfws:v1:(setup|revoke):(${B58}):(${B58})$`), (m) => ({ kind: m[1] as 'setup', wallet: m[2]!, sessionPubkey: m[3]! })],
  [new RegExp(`^pfws:v1:(deposit|lp-deposit|lp-redeem):(${B58})$`), (m) => ({ kind: m[1] as 'deposit', wallet: m[2]! })],
  [new RegExp(`^pfws:v1:reveal:(${HEX32}):(${HEX32})$`), (m) => ({ kind: 'reveal', betPayloadHash: m[1]! as Hex32, clientSeedRaw: m[2]! })],
  [new RegExp(`^pfws:v1:rng-head:(${UINT}):(${HEX32})$`), (m) => ({ kind: 'rng-head', chainId: Number(m[1]), headHex: m[2]! })],
  [
    new RegExp(`^pfws:v1:commit:(${UINT}):(${HEX32}):(${HEX32}):(${UINT}):(${UINT}):(${HEX32}):(${HEX32})$`),
    (m) => ({
      kind: 'commit',
      entryCount: Number(m[1]),
      betLogRoot: m[2]!,
      stateRoot: m[3]!,
      totalLiabilities: BigInt(m[4]!),
      rngIndex: Number(m[5]),
      rngRevealHex: m[6]!,
      manifestHash: m[7]!,
    }),
  ],
  [/^pfws:v1:withdraw:([A-Za-z0-9_-]{1,64})$/, (m) => ({ kind: 'withdraw', withdrawalId: m[1]! })],
  [/^pfws:v1:(lp-mint|lp-pay):([A-Za-z0-9_-]{1,64})$/, (m) => ({ kind: m[1] as 'lp-mint', jobId: m[2]! })],
  [new RegExp(`^pfws:v1:x402:(${B58}):([0-9a-f]{32})$`), (m) => ({ kind: 'x402', wallet: m[1]!, nonceHex: m[2]! })],
];

/** Parses a memo text; null when it is not one of ours. */
export function parseMemo(text: string): ParsedMemo | null {
  if (!text.startsWith(MEMO_PREFIX)) return null;
  for (const [re, build] of PATTERNS) {
    const m = re.exec(text);
    if (m) return build(m);
  }
  return null;
}
