// Landed-transaction store: an append-only JSON-lines file, plus in-memory signature and per-address indexes.
import { open, type FileHandle } from 'node:fs/promises';
import type { LoadedAddresses, TokenBalance } from './chain.ts';
import type { TxErr } from './errors.ts';
import { decodeTransaction } from './wire.ts';

export interface StoredInnerInstruction {
  programIdIndex: number;
  accounts: number[];
  /** base58 */
  data: string;
  stackHeight: number;
}

export interface TxRecord {
  signature: string;
  slot: number;
  blockTime: number;
  /** Wire transaction, base64. */
  wire: string;
  err: TxErr | null;
  fee: string;
  preBalances: string[];
  postBalances: string[];
  preTokenBalances: TokenBalance[];
  postTokenBalances: TokenBalance[];
  logs: string[];
  innerInstructions: { index: number; instructions: StoredInnerInstruction[] }[];
  unitsConsumed: number;
  loadedAddresses: LoadedAddresses;
  returnData: { programId: string; data: string } | null;
  memo: string | null;
}

export interface SignatureInfo {
  signature: string;
  slot: number;
  err: TxErr | null;
  memo: string | null;
  blockTime: number;
}

export interface Logger {
  info(o: object | string, msg?: string): void;
  warn(...a: unknown[]): void;
  error(...a: unknown[]): void;
}

const RECENT_CACHE = 4096;
const READ_CHUNK = 4 * 1024 * 1024;

export class History {
  private readonly sigs: string[] = [];
  private readonly slots: number[] = [];
  private readonly blockTimes: number[] = [];
  private readonly errs: (TxErr | null)[] = [];
  private readonly memos: (string | null)[] = [];
  private readonly offsets: number[] = [];
  private readonly lengths: number[] = [];
  private readonly bySig = new Map<string, number>();
  private readonly byAddress = new Map<string, number[]>();
  private readonly recent = new Map<number, TxRecord>();
  private pending: Buffer[] = [];
  private endOffset: number;
  private writtenOffset: number;
  private writing: Promise<void> | null = null;

  private constructor(
    private readonly fh: FileHandle,
    size: number,
    private readonly log: Logger,
  ) {
    this.endOffset = size;
    this.writtenOffset = size;
  }

  static async open(path: string, log: Logger): Promise<History> {
    const fh = await open(path, 'a+');
    const { size } = await fh.stat();
    const h = new History(fh, size, log);
    const validEnd = await h.load(size);
    if (validEnd < size) {
      log.warn({ path, dropped: size - validEnd }, 'localnet: truncating incomplete tail of transaction log');
      await fh.truncate(validEnd);
      h.endOffset = validEnd;
      h.writtenOffset = validEnd;
    }
    return h;
  }

  /** Rebuild the indexes from the file; returns the byte offset where valid records end. */
  private async load(size: number): Promise<number> {
    let pos = 0;
    let carry = Buffer.alloc(0);
    while (pos < size) {
      const chunk = Buffer.alloc(Math.min(READ_CHUNK, size - pos));
      const { bytesRead } = await this.fh.read(chunk, 0, chunk.length, pos);
      if (bytesRead === 0) break;
      const buf = carry.length ? Buffer.concat([carry, chunk.subarray(0, bytesRead)]) : chunk.subarray(0, bytesRead);
      const bufStart = pos - carry.length;
      pos += bytesRead;
      let lineStart = 0;
      for (let nl = buf.indexOf(10); nl !== -1; nl = buf.indexOf(10, lineStart)) {
        let rec: TxRecord;
        try {
          rec = JSON.parse(buf.toString('utf8', lineStart, nl)) as TxRecord;
        } catch {
          return bufStart + lineStart;
        }
        this.index(rec, bufStart + lineStart, nl + 1 - lineStart);
        lineStart = nl + 1;
      }
      carry = Buffer.from(buf.subarray(lineStart));
    }
    return pos - carry.length;
  }

  private index(rec: TxRecord, offset: number, length: number): number {
    const seq = this.sigs.length;
    this.sigs.push(rec.signature);
    this.slots.push(rec.slot);
    this.blockTimes.push(rec.blockTime);
    this.errs.push(rec.err);
    this.memos.push(rec.memo);
    this.offsets.push(offset);
    this.lengths.push(length);
    this.bySig.set(rec.signature, seq);
    const keys = new Set<string>();
    try {
      for (const k of decodeTransaction(Buffer.from(rec.wire, 'base64')).message.staticKeys) keys.add(k);
    } catch {
      // A record is written only after its bytes decoded once, so this is unreachable short of disk corruption.
    }
    for (const k of rec.loadedAddresses.writable) keys.add(k);
    for (const k of rec.loadedAddresses.readonly) keys.add(k);
    for (const k of keys) {
      const list = this.byAddress.get(k);
      if (list) list.push(seq);
      else this.byAddress.set(k, [seq]);
    }
    return seq;
  }

  get count(): number {
    return this.sigs.length;
  }

  get lastSlot(): number {
    return this.slots[this.slots.length - 1] ?? 0;
  }

  has(signature: string): boolean {
    return this.bySig.has(signature);
  }

  append(rec: TxRecord): void {
    const line = Buffer.from(`${JSON.stringify(rec)}\n`, 'utf8');
    const seq = this.index(rec, this.endOffset, line.length);
    this.endOffset += line.length;
    this.recent.set(seq, rec);
    this.recent.delete(seq - RECENT_CACHE);
    this.pending.push(line);
    if (!this.writing) this.writing = this.drain();
  }

  private async drain(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending;
      this.pending = [];
      const buf = batch.length === 1 ? (batch[0] as Buffer) : Buffer.concat(batch);
      try {
        await this.fh.write(buf);
        this.writtenOffset += buf.length;
      } catch (e) {
        this.log.error({ err: e }, 'localnet: failed to append to transaction log');
      }
    }
    this.writing = null;
  }

  /** Resolves once every record appended so far is written to the file. */
  async flushed(): Promise<void> {
    while (this.writing) await this.writing;
  }

  status(signature: string): { slot: number; err: TxErr | null } | null {
    const seq = this.bySig.get(signature);
    if (seq === undefined) return null;
    return { slot: this.slots[seq] ?? 0, err: this.errs[seq] ?? null };
  }

  async get(signature: string): Promise<TxRecord | null> {
    const seq = this.bySig.get(signature);
    return seq === undefined ? null : this.getBySeq(seq);
  }

  async getBySeq(seq: number): Promise<TxRecord | null> {
    const cached = this.recent.get(seq);
    if (cached) return cached;
    const offset = this.offsets[seq];
    const length = this.lengths[seq];
    if (offset === undefined || length === undefined) return null;
    if (offset + length > this.writtenOffset) await this.flushed();
    const buf = Buffer.alloc(length);
    await this.fh.read(buf, 0, length, offset);
    return JSON.parse(buf.toString('utf8')) as TxRecord;
  }

  /** Newest first. `before`/`until` are exclusive bounds; an unknown `before` yields nothing, as on a real node. */
  signaturesFor(address: string, limit: number, before?: string, until?: string): SignatureInfo[] {
    const list = this.byAddress.get(address);
    if (!list) return [];
    let hi = list.length - 1;
    if (before !== undefined) {
      const b = this.bySig.get(before);
      if (b === undefined) return [];
      let lo = 0;
      let top = list.length;
      while (lo < top) {
        const mid = (lo + top) >>> 1;
        if ((list[mid] ?? 0) < b) lo = mid + 1;
        else top = mid;
      }
      hi = lo - 1;
    }
    const untilSeq = until !== undefined ? (this.bySig.get(until) ?? -1) : -1;
    const out: SignatureInfo[] = [];
    for (let i = hi; i >= 0 && out.length < limit; i--) {
      const seq = list[i] ?? 0;
      if (seq <= untilSeq) break;
      out.push({
        signature: this.sigs[seq] ?? '',
        slot: this.slots[seq] ?? 0,
        err: this.errs[seq] ?? null,
        memo: this.memos[seq] ?? null,
        blockTime: this.blockTimes[seq] ?? 0,
      });
    }
    return out;
  }

  async close(): Promise<void> {
    await this.flushed();
    await this.fh.close();
  }
}
