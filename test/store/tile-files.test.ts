// Tiles read into pooled buffers: each lease holds the file's bytes, a buffer is never handed to two leases at
// once, and one given back is reused (so serving an audit allocates no new buffer per tile).
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TileFiles } from '../../store/tile-files.ts';

describe('TileFiles.lease', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pfws-tile-files-'));
  const bytesOf = (n: number, fill: number) => Buffer.alloc(n, fill);
  mkdirSync(path.join(dir, 'tile/entries'), { recursive: true });
  writeFileSync(path.join(dir, 'tile/entries/000'), bytesOf(300_000, 1));
  writeFileSync(path.join(dir, 'tile/entries/001'), bytesOf(280_000, 2));
  writeFileSync(path.join(dir, 'tile/entries/002'), bytesOf(0, 0));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('holds the whole file, and is null for a tile not written', async () => {
    const files = new TileFiles(dir);
    const a = await files.lease('tile/entries/000');
    expect(a?.bytes.equals(bytesOf(300_000, 1))).toBe(true);
    expect((await files.lease('tile/entries/002'))?.bytes.length).toBe(0);
    expect(await files.lease('tile/entries/003')).toBeNull();
  });

  it('reuses a buffer given back, and never one still leased', async () => {
    const files = new TileFiles(dir);
    const a = (await files.lease('tile/entries/000'))!;
    const b = (await files.lease('tile/entries/001'))!;
    expect(b.bytes.buffer).not.toBe(a.bytes.buffer);
    a.release();
    a.release(); // twice is once: the buffer is not pooled twice
    const c = (await files.lease('tile/entries/001'))!;
    expect(c.bytes.buffer).toBe(a.bytes.buffer);
    expect(c.bytes.equals(bytesOf(280_000, 2))).toBe(true);
    const d = (await files.lease('tile/entries/000'))!;
    expect(d.bytes.buffer).not.toBe(c.bytes.buffer);
    expect(d.bytes.buffer).not.toBe(b.bytes.buffer);
    expect(d.bytes.equals(bytesOf(300_000, 1))).toBe(true);
    // b's bytes were not overwritten by the leases that came after it
    expect(b.bytes.equals(bytesOf(280_000, 2))).toBe(true);
  });
});

describe('TileFiles.writeBuilt', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pfws-tile-files-built-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes what it built in a pooled buffer, and reuses that buffer for the next', async () => {
    const files = new TileFiles(dir);
    const given: Buffer[] = [];
    const build = (fill: number, n: number) => (allocate: (size: number) => Buffer) => {
      const buffer = allocate(n);
      given.push(buffer);
      return buffer.fill(fill, 0, n).subarray(0, n);
    };
    await files.writeBuilt('receipts/000', build(7, 200_000));
    await files.writeBuilt('receipts/001', build(8, 150_000));
    expect(given[1]?.buffer).toBe(given[0]?.buffer);
    expect((await files.read('receipts/000'))?.equals(Buffer.alloc(200_000, 7))).toBe(true);
    expect((await files.read('receipts/001'))?.equals(Buffer.alloc(150_000, 8))).toBe(true);
    // Reads lease from the same pool: the buffer the writes used serves a read of a tile that fits it.
    const lease = (await files.lease('receipts/001'))!;
    expect(lease.bytes.buffer).toBe(given[0]?.buffer);
    lease.release();
  });
});
