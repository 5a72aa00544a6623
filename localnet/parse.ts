// jsonParsed rendering of instructions and accounts, following agave's transaction-status and account-decoder parsers.
import { base58 } from '@scure/base';
import type { Json } from './json.ts';
import { ATA_PROGRAM, SYSTEM_PROGRAM, TOKEN_2022_PROGRAM, isMemoProgram, isTokenProgram } from './programs.ts';
import { decodeMint, decodeMultisig, decodeTokenAccount, isMintData, isTokenAccountData, uiTokenAmount, type TokenAccount } from './token.ts';

type Obj = { [k: string]: Json };

class ParseError extends Error {}

class Data {
  private readonly view: DataView;
  pos = 0;
  constructor(readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  private need(n: number): void {
    if (this.pos + n > this.bytes.length) throw new ParseError('short data');
  }
  u8(): number {
    this.need(1);
    return this.view.getUint8(this.pos++);
  }
  u32(): number {
    this.need(4);
    const v = this.view.getUint32(this.pos, true);
    this.pos += 4;
    return v;
  }
  u64(): bigint {
    this.need(8);
    const v = this.view.getBigUint64(this.pos, true);
    this.pos += 8;
    return v;
  }
  key(): string {
    this.need(32);
    const v = base58.encode(this.bytes.subarray(this.pos, this.pos + 32));
    this.pos += 32;
    return v;
  }
  /** COption<Pubkey> as packed in token instructions: a one-byte tag. */
  optKey(): string | null {
    const tag = this.u8();
    if (tag === 0) return null;
    if (tag !== 1) throw new ParseError('bad option tag');
    return this.key();
  }
  /** bincode String: u64 length then UTF-8. */
  str(): string {
    const len = Number(this.u64());
    this.need(len);
    const s = utf8(this.bytes.subarray(this.pos, this.pos + len));
    this.pos += len;
    if (s === null) throw new ParseError('bad utf8');
    return s;
  }
  rest(): Uint8Array {
    return this.bytes.subarray(this.pos);
  }
}

const strictDecoder = new TextDecoder('utf-8', { fatal: true });
export function utf8(bytes: Uint8Array): string | null {
  try {
    return strictDecoder.decode(bytes);
  } catch {
    return null;
  }
}

export interface InstructionInput {
  programId: string;
  /** Account addresses, already resolved. */
  accounts: string[];
  data: Uint8Array;
  stackHeight: number | null;
}

export function partiallyDecoded(ix: InstructionInput): Obj {
  return { programId: ix.programId, accounts: ix.accounts, data: base58.encode(ix.data), stackHeight: ix.stackHeight };
}

/** One instruction as the real RPC renders it in jsonParsed, falling back to partially decoded. */
export function parseInstruction(ix: InstructionInput): Obj {
  try {
    const parsed = parseKnown(ix);
    if (parsed) return { program: parsed.program, programId: ix.programId, parsed: parsed.parsed, stackHeight: ix.stackHeight };
  } catch (e) {
    if (!(e instanceof ParseError)) throw e;
  }
  return partiallyDecoded(ix);
}

function parseKnown(ix: InstructionInput): { program: string; parsed: Json } | null {
  if (isMemoProgram(ix.programId)) {
    const text = utf8(ix.data);
    if (text === null) throw new ParseError('memo not utf8');
    return { program: 'spl-memo', parsed: text };
  }
  if (ix.programId === SYSTEM_PROGRAM) return { program: 'system', parsed: parseSystem(ix) };
  if (isTokenProgram(ix.programId)) return { program: 'spl-token', parsed: parseToken(ix) };
  if (ix.programId === ATA_PROGRAM) return { program: 'spl-associated-token-account', parsed: parseAta(ix) };
  return null;
}

function need(accounts: string[], n: number): void {
  if (accounts.length < n) throw new ParseError('not enough accounts');
}

function acc(accounts: string[], i: number): string {
  const a = accounts[i];
  if (a === undefined) throw new ParseError('not enough accounts');
  return a;
}

function parseSystem(ix: InstructionInput): Json {
  const a = ix.accounts;
  const d = new Data(ix.data);
  const tag = d.u32();
  switch (tag) {
    case 0: {
      need(a, 2);
      const lamports = d.u64();
      const space = d.u64();
      const owner = d.key();
      return { type: 'createAccount', info: { source: acc(a, 0), newAccount: acc(a, 1), lamports, space, owner } };
    }
    case 1:
      need(a, 1);
      return { type: 'assign', info: { account: acc(a, 0), owner: d.key() } };
    case 2:
      need(a, 2);
      return { type: 'transfer', info: { source: acc(a, 0), destination: acc(a, 1), lamports: d.u64() } };
    case 3: {
      need(a, 2);
      const base = d.key();
      const seed = d.str();
      const lamports = d.u64();
      const space = d.u64();
      const owner = d.key();
      return { type: 'createAccountWithSeed', info: { source: acc(a, 0), newAccount: acc(a, 1), base, seed, lamports, space, owner } };
    }
    case 4:
      need(a, 3);
      return { type: 'advanceNonce', info: { nonceAccount: acc(a, 0), recentBlockhashesSysvar: acc(a, 1), nonceAuthority: acc(a, 2) } };
    case 5: {
      need(a, 5);
      const lamports = d.u64();
      return {
        type: 'withdrawFromNonce',
        info: {
          nonceAccount: acc(a, 0),
          destination: acc(a, 1),
          recentBlockhashesSysvar: acc(a, 2),
          rentSysvar: acc(a, 3),
          nonceAuthority: acc(a, 4),
          lamports,
        },
      };
    }
    case 6:
      need(a, 3);
      return {
        type: 'initializeNonce',
        info: { nonceAccount: acc(a, 0), recentBlockhashesSysvar: acc(a, 1), rentSysvar: acc(a, 2), nonceAuthority: d.key() },
      };
    case 7:
      need(a, 2);
      return { type: 'authorizeNonce', info: { nonceAccount: acc(a, 0), nonceAuthority: acc(a, 1), newAuthorized: d.key() } };
    case 8:
      need(a, 1);
      return { type: 'allocate', info: { account: acc(a, 0), space: d.u64() } };
    case 9: {
      need(a, 2);
      const base = d.key();
      const seed = d.str();
      const space = d.u64();
      const owner = d.key();
      return { type: 'allocateWithSeed', info: { account: acc(a, 0), base, seed, space, owner } };
    }
    case 10: {
      need(a, 2);
      const base = d.key();
      const seed = d.str();
      const owner = d.key();
      return { type: 'assignWithSeed', info: { account: acc(a, 0), base, seed, owner } };
    }
    case 11: {
      need(a, 3);
      const lamports = d.u64();
      const sourceSeed = d.str();
      const sourceOwner = d.key();
      return {
        type: 'transferWithSeed',
        info: { source: acc(a, 0), sourceBase: acc(a, 1), destination: acc(a, 2), lamports, sourceSeed, sourceOwner },
      };
    }
    case 12:
      need(a, 1);
      return { type: 'upgradeNonce', info: { nonceAccount: acc(a, 0) } };
    default:
      throw new ParseError('unknown system instruction');
  }
}

/** Agave's `parse_signers`: a single authority, or a multisig plus its signers. */
function signers(info: Obj, a: string[], lastNonSigner: number, ownerField: string, multisigField: string): Obj {
  if (a.length > lastNonSigner + 1) {
    info[multisigField] = acc(a, lastNonSigner);
    info.signers = a.slice(lastNonSigner + 1);
  } else {
    info[ownerField] = acc(a, lastNonSigner);
  }
  return info;
}

const AUTHORITY_TYPES = [
  'mintTokens',
  'freezeAccount',
  'accountOwner',
  'closeAccount',
  'transferFeeConfig',
  'withheldWithdraw',
  'closeMint',
  'interestRate',
  'permanentDelegate',
  'confidentialTransferMint',
  'transferHookProgramId',
  'confidentialTransferFeeConfig',
  'metadataPointer',
  'groupPointer',
  'groupMemberPointer',
  'scaledUiAmount',
  'pause',
];

function parseToken(ix: InstructionInput): Json {
  const a = ix.accounts;
  const d = new Data(ix.data);
  const tag = d.u8();
  switch (tag) {
    case 0:
    case 20: {
      need(a, tag === 0 ? 2 : 1);
      const decimals = d.u8();
      const mintAuthority = d.key();
      const freeze = d.rest().length > 0 ? d.optKey() : null;
      const info: Obj = { mint: acc(a, 0), decimals, mintAuthority };
      if (tag === 0) info.rentSysvar = acc(a, 1);
      if (freeze !== null) info.freezeAuthority = freeze;
      return { type: tag === 0 ? 'initializeMint' : 'initializeMint2', info };
    }
    case 1:
      need(a, 4);
      return { type: 'initializeAccount', info: { account: acc(a, 0), mint: acc(a, 1), owner: acc(a, 2), rentSysvar: acc(a, 3) } };
    case 16:
      need(a, 3);
      return { type: 'initializeAccount2', info: { account: acc(a, 0), mint: acc(a, 1), owner: d.key(), rentSysvar: acc(a, 2) } };
    case 18:
      need(a, 2);
      return { type: 'initializeAccount3', info: { account: acc(a, 0), mint: acc(a, 1), owner: d.key() } };
    case 2:
      need(a, 3);
      return { type: 'initializeMultisig', info: { multisig: acc(a, 0), rentSysvar: acc(a, 1), signers: a.slice(2), m: d.u8() } };
    case 19:
      need(a, 2);
      return { type: 'initializeMultisig2', info: { multisig: acc(a, 0), signers: a.slice(1), m: d.u8() } };
    case 3:
      need(a, 3);
      return {
        type: 'transfer',
        info: signers({ source: acc(a, 0), destination: acc(a, 1), amount: d.u64().toString() }, a, 2, 'authority', 'multisigAuthority'),
      };
    case 4:
      need(a, 3);
      return {
        type: 'approve',
        info: signers({ source: acc(a, 0), delegate: acc(a, 1), amount: d.u64().toString() }, a, 2, 'owner', 'multisigOwner'),
      };
    case 5:
      need(a, 2);
      return { type: 'revoke', info: signers({ source: acc(a, 0) }, a, 1, 'owner', 'multisigOwner') };
    case 6: {
      need(a, 2);
      const typeIndex = d.u8();
      const authorityType = AUTHORITY_TYPES[typeIndex];
      if (authorityType === undefined) throw new ParseError('bad authority type');
      const newAuthority = d.optKey();
      const owned = authorityType === 'accountOwner' || authorityType === 'closeAccount' ? 'account' : 'mint';
      return {
        type: 'setAuthority',
        info: signers({ [owned]: acc(a, 0), authorityType, newAuthority }, a, 1, 'authority', 'multisigAuthority'),
      };
    }
    case 7:
      need(a, 3);
      return {
        type: 'mintTo',
        info: signers({ mint: acc(a, 0), account: acc(a, 1), amount: d.u64().toString() }, a, 2, 'mintAuthority', 'multisigMintAuthority'),
      };
    case 8:
      need(a, 3);
      return {
        type: 'burn',
        info: signers({ account: acc(a, 0), mint: acc(a, 1), amount: d.u64().toString() }, a, 2, 'authority', 'multisigAuthority'),
      };
    case 9:
      need(a, 3);
      return { type: 'closeAccount', info: signers({ account: acc(a, 0), destination: acc(a, 1) }, a, 2, 'owner', 'multisigOwner') };
    case 10:
    case 11:
      need(a, 3);
      return {
        type: tag === 10 ? 'freezeAccount' : 'thawAccount',
        info: signers({ account: acc(a, 0), mint: acc(a, 1) }, a, 2, 'freezeAuthority', 'multisigFreezeAuthority'),
      };
    case 12: {
      need(a, 4);
      const amount = d.u64();
      const decimals = d.u8();
      return {
        type: 'transferChecked',
        info: signers(
          { source: acc(a, 0), mint: acc(a, 1), destination: acc(a, 2), tokenAmount: uiTokenAmount(amount, decimals) },
          a,
          3,
          'authority',
          'multisigAuthority',
        ),
      };
    }
    case 13: {
      need(a, 4);
      const amount = d.u64();
      const decimals = d.u8();
      return {
        type: 'approveChecked',
        info: signers(
          { source: acc(a, 0), mint: acc(a, 1), delegate: acc(a, 2), tokenAmount: uiTokenAmount(amount, decimals) },
          a,
          3,
          'owner',
          'multisigOwner',
        ),
      };
    }
    case 14: {
      need(a, 3);
      const amount = d.u64();
      const decimals = d.u8();
      return {
        type: 'mintToChecked',
        info: signers({ mint: acc(a, 0), account: acc(a, 1), tokenAmount: uiTokenAmount(amount, decimals) }, a, 2, 'mintAuthority', 'multisigMintAuthority'),
      };
    }
    case 15: {
      need(a, 3);
      const amount = d.u64();
      const decimals = d.u8();
      return {
        type: 'burnChecked',
        info: signers({ account: acc(a, 0), mint: acc(a, 1), tokenAmount: uiTokenAmount(amount, decimals) }, a, 2, 'authority', 'multisigAuthority'),
      };
    }
    case 17:
      need(a, 1);
      return { type: 'syncNative', info: { account: acc(a, 0) } };
    case 21:
      need(a, 1);
      return { type: 'getAccountDataSize', info: { mint: acc(a, 0) } };
    case 22:
      need(a, 1);
      return { type: 'initializeImmutableOwner', info: { account: acc(a, 0) } };
    case 23:
      need(a, 1);
      return { type: 'amountToUiAmount', info: { mint: acc(a, 0), amount: d.u64().toString() } };
    case 24: {
      need(a, 1);
      const s = utf8(d.rest());
      if (s === null) throw new ParseError('bad utf8');
      return { type: 'uiAmountToAmount', info: { mint: acc(a, 0), uiAmount: s } };
    }
    default:
      throw new ParseError('unsupported token instruction');
  }
}

function parseAta(ix: InstructionInput): Json {
  const a = ix.accounts;
  const tag = ix.data.length === 0 ? 0 : ix.data[0];
  if (tag === 0 || tag === 1) {
    need(a, 6);
    return {
      type: tag === 0 ? 'create' : 'createIdempotent',
      info: { source: acc(a, 0), account: acc(a, 1), wallet: acc(a, 2), mint: acc(a, 3), systemProgram: acc(a, 4), tokenProgram: acc(a, 5) },
    };
  }
  if (tag === 2) {
    need(a, 7);
    return {
      type: 'recoverNested',
      info: {
        nestedSource: acc(a, 0),
        nestedMint: acc(a, 1),
        destination: acc(a, 2),
        nestedOwner: acc(a, 3),
        ownerMint: acc(a, 4),
        wallet: acc(a, 5),
        tokenProgram: acc(a, 6),
      },
    };
  }
  throw new ParseError('unknown ATA instruction');
}

/** The RPC's memo column: `[len] text` per top-level memo instruction, joined by "; ". */
export function formatMemos(memos: Uint8Array[]): string | null {
  if (memos.length === 0) return null;
  return memos.map((m) => `[${m.length}] ${utf8(m) ?? '(unparseable)'}`).join('; ');
}

/** Decimals of a mint, looked up by the caller; null when the mint is missing or not a mint. */
export type MintLookup = (mint: string) => number | null;

function tokenAccountInfo(t: TokenAccount, decimals: number): Obj {
  const info: Obj = { isNative: t.isNative !== null, mint: t.mint, owner: t.owner, state: t.state, tokenAmount: uiTokenAmount(t.amount, decimals) };
  if (t.delegate !== null) {
    info.delegate = t.delegate;
    info.delegatedAmount = uiTokenAmount(t.delegatedAmount, decimals);
  }
  if (t.isNative !== null) info.rentExemptReserve = uiTokenAmount(t.isNative, decimals);
  if (t.closeAuthority !== null) info.closeAuthority = t.closeAuthority;
  return info;
}

/** `{ program, parsed, space }` for accounts the real RPC parses; null means "fall back to base64". */
export function parseAccountData(owner: string, data: Uint8Array, mintDecimals: MintLookup): Obj | null {
  if (!isTokenProgram(owner)) return null;
  const is2022 = owner === TOKEN_2022_PROGRAM;
  // Token-2022 extensions are not rendered; extended accounts fall back to base64.
  if (is2022 && data.length > 165) return null;
  let parsed: Json | null = null;
  if (isTokenAccountData(data, is2022)) {
    const t = decodeTokenAccount(data);
    if (!t || t.state === 'uninitialized') return null;
    const decimals = mintDecimals(t.mint);
    if (decimals === null) return null;
    parsed = { type: 'account', info: tokenAccountInfo(t, decimals) };
  } else if (isMintData(data, is2022)) {
    const m = decodeMint(data);
    if (!m?.isInitialized) return null;
    parsed = {
      type: 'mint',
      info: {
        decimals: m.decimals,
        freezeAuthority: m.freezeAuthority,
        isInitialized: m.isInitialized,
        mintAuthority: m.mintAuthority,
        supply: m.supply.toString(),
      },
    };
  } else {
    const ms = decodeMultisig(data);
    if (!ms) return null;
    parsed = { type: 'multisig', info: ms };
  }
  return { program: 'spl-token', parsed, space: BigInt(data.length) };
}
