// Each host holds only the operator secrets its role needs: a public-key file stands in for the rest.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadOperatorKey } from '../../operator/keys.ts';

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('operator keys', () => {
  it('creates keypairs in localnet, and refuses to create them otherwise', async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'pfws-keys-'));
    await expect(loadOperatorKey(dir, 'ack', false)).rejects.toThrow(/missing/);
    const key = await loadOperatorKey(dir, 'ack', true);
    expect(key.seed).toHaveLength(32);
    expect((await loadOperatorKey(dir, 'ack', false)).publicKey).toBe(key.publicKey);
  });

  it('a .pub file gives the public key, and any use of the secret fails loudly', async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'pfws-keys-'));
    writeFileSync(path.join(dir, 'keeper.pub'), '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin\n');
    const keeper = await loadOperatorKey(dir, 'keeper', false);
    expect(keeper.publicKey).toBe('9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin');
    expect(() => keeper.seed).toThrow(/not on this host/);
    expect(() => keeper.signer).toThrow(/not on this host/);
    writeFileSync(path.join(dir, 'anchor.pub'), 'not a key');
    await expect(loadOperatorKey(dir, 'anchor', false)).rejects.toThrow(/base58/);
  });
});
