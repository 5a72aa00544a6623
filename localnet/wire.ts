// Solana wire-format transaction and message decoding, with the sanitize checks the real RPC applies.
import { base58 } from '@scure/base';

export const PACKET_DATA_SIZE = 1232;

export class WireError extends Error {}

export interface MessageHeader {
  numRequiredSignatures: number;
  numReadonlySignedAccounts: number;
  numReadonlyUnsignedAccounts: number;
}

export interface CompiledInstruction {
  programIdIndex: number;
  accounts: number[];
  data: Uint8Array;
}

export interface LookupTableRef {
  accountKey: string;
  writableIndexes: number[];
  readonlyIndexes: number[];
}

export interface Message {
  version: 'legacy' | 0;
  header: MessageHeader;
  staticKeys: string[];
  recentBlockhash: string;
  /** Byte offset of the recent blockhash inside the message bytes. */
  blockhashOffset: number;
  instructions: CompiledInstruction[];
  lookups: LookupTableRef[];
}

export interface Transaction {
  signatures: Uint8Array[];
  message: Message;
  messageBytes: Uint8Array;
  /** Exact wire bytes (signatures + message), trailing garbage dropped. */
  bytes: Uint8Array;
}

class Reader {
  pos = 0;
  constructor(private readonly buf: Uint8Array) {}
  u8(): number {
    const v = this.buf[this.pos];
    if (v === undefined) throw new WireError('io error: failed to fill whole buffer');
    this.pos++;
    return v;
  }
  bytes(n: number): Uint8Array {
    if (this.pos + n > this.buf.length) throw new WireError('io error: failed to fill whole buffer');
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
  shortVec(): number {
    let value = 0;
    for (let i = 0; i < 3; i++) {
      const b = this.u8();
      value |= (b & 0x7f) << (7 * i);
      if ((b & 0x80) === 0) {
        if (i > 0 && b === 0) throw new WireError('invalid compact-u16: alias');
        return value;
      }
    }
    throw new WireError('invalid compact-u16: overflow');
  }
}

export function decodeMessage(buf: Uint8Array): { message: Message; length: number } {
  const r = new Reader(buf);
  let version: 'legacy' | 0 = 'legacy';
  const first = r.u8();
  let header0 = first;
  if (first & 0x80) {
    const v = first & 0x7f;
    if (v !== 0) throw new WireError(`unsupported transaction version ${v}`);
    version = 0;
    header0 = r.u8();
  }
  const header: MessageHeader = {
    numRequiredSignatures: header0,
    numReadonlySignedAccounts: r.u8(),
    numReadonlyUnsignedAccounts: r.u8(),
  };
  const nKeys = r.shortVec();
  const staticKeys: string[] = [];
  for (let i = 0; i < nKeys; i++) staticKeys.push(base58.encode(r.bytes(32)));
  const blockhashOffset = r.pos;
  const recentBlockhash = base58.encode(r.bytes(32));
  const nIx = r.shortVec();
  const instructions: CompiledInstruction[] = [];
  for (let i = 0; i < nIx; i++) {
    const programIdIndex = r.u8();
    const nAcc = r.shortVec();
    const accounts = Array.from(r.bytes(nAcc));
    const nData = r.shortVec();
    const data = r.bytes(nData).slice();
    instructions.push({ programIdIndex, accounts, data });
  }
  const lookups: LookupTableRef[] = [];
  if (version === 0) {
    const nLookups = r.shortVec();
    for (let i = 0; i < nLookups; i++) {
      const accountKey = base58.encode(r.bytes(32));
      const writableIndexes = Array.from(r.bytes(r.shortVec()));
      const readonlyIndexes = Array.from(r.bytes(r.shortVec()));
      lookups.push({ accountKey, writableIndexes, readonlyIndexes });
    }
  }
  return {
    message: { version, header, staticKeys, recentBlockhash, blockhashOffset, instructions, lookups },
    length: r.pos,
  };
}

export function decodeTransaction(buf: Uint8Array): Transaction {
  const r = new Reader(buf);
  const nSigs = r.shortVec();
  const signatures: Uint8Array[] = [];
  for (let i = 0; i < nSigs; i++) signatures.push(r.bytes(64).slice());
  const msgStart = r.pos;
  const { message, length } = decodeMessage(buf.subarray(msgStart));
  const messageBytes = buf.slice(msgStart, msgStart + length);
  return { signatures, message, messageBytes, bytes: buf.slice(0, msgStart + length) };
}

/** Agave's `sanitize`: returns false when offsets or counts are inconsistent. */
export function sanitize(tx: Transaction): boolean {
  const m = tx.message;
  const h = m.header;
  if (tx.signatures.length !== h.numRequiredSignatures) return false;
  if (h.numRequiredSignatures > m.staticKeys.length) return false;
  if (h.numReadonlySignedAccounts >= h.numRequiredSignatures) return false;
  if (h.numRequiredSignatures + h.numReadonlyUnsignedAccounts > m.staticKeys.length) return false;
  let loaded = 0;
  for (const l of m.lookups) {
    if (l.writableIndexes.length + l.readonlyIndexes.length === 0) return false;
    loaded += l.writableIndexes.length + l.readonlyIndexes.length;
  }
  const total = m.staticKeys.length + loaded;
  if (total > 256) return false;
  for (const ix of m.instructions) {
    if (ix.programIdIndex === 0 || ix.programIdIndex >= m.staticKeys.length) return false;
    for (const a of ix.accounts) if (a >= total) return false;
  }
  return true;
}

/** Header-derived writability of an account index (before loaded addresses). */
export function isStaticWritable(m: Message, i: number): boolean {
  const h = m.header;
  if (i < h.numRequiredSignatures) return i < h.numRequiredSignatures - h.numReadonlySignedAccounts;
  return i < m.staticKeys.length - h.numReadonlyUnsignedAccounts;
}

export function signatureString(tx: Transaction): string {
  const first = tx.signatures[0];
  return first ? base58.encode(first) : base58.encode(new Uint8Array(64));
}
