// The branded strings parse at the edge: a wallet or key is base58 of exactly 32 bytes, a hash 64 lowercase hex digits.
import { describe, expect, it } from 'vitest';
import { address, assertIsBase58Key, base58Key, isAddress, isBase58Key } from '../../protocol/address.ts';
import { hex32, isHex32, toHex32 } from '../../protocol/hex32.ts';
import { toBase58 } from '../../protocol/encoding.ts';
import { betPayloadHashOf } from '../../protocol/bet-payload.ts';

const key = toBase58(new Uint8Array(32).fill(7));

describe('Address and Base58Key', () => {
  it('accept base58 of 32 bytes, the system program included', () => {
    expect(isAddress(key)).toBe(true);
    expect(isAddress('11111111111111111111111111111111')).toBe(true);
    expect(address(key)).toBe(key);
    expect(base58Key(key)).toBe(key);
  });

  it('refuse other lengths, other alphabets and non-strings', () => {
    for (const bad of [toBase58(new Uint8Array(31).fill(7)), toBase58(new Uint8Array(33).fill(7)), `${key.slice(0, -1)}0`, `${key}l`, '', 42, null]) {
      expect(isAddress(bad), String(bad)).toBe(false);
      expect(isBase58Key(bad), String(bad)).toBe(false);
    }
    expect(() => address('not-a-key')).toThrow(TypeError);
    expect(() => assertIsBase58Key(key.slice(1))).toThrow(TypeError);
  });
});

describe('Hex32', () => {
  it('accepts 64 lowercase hex digits only', () => {
    expect(hex32('ab'.repeat(32))).toBe('ab'.repeat(32));
    for (const bad of ['AB'.repeat(32), 'ab'.repeat(31), `${'ab'.repeat(31)}a`, `${'ab'.repeat(31)}zz`, 'ab'.repeat(33), undefined])
      expect(isHex32(bad), String(bad)).toBe(false);
    expect(() => hex32('ab'.repeat(31))).toThrow(TypeError);
  });

  it('is what the protocol computes: a payload hash is a Hex32 without a parse', () => {
    expect(toHex32(new Uint8Array(32))).toBe('00'.repeat(32));
    expect(() => toHex32(new Uint8Array(20))).toThrow(RangeError);
    const hash = betPayloadHashOf({
      protocol: 'pfws/v1',
      game: 'dice',
      player: 'p_x',
      sessionPubkey: key,
      betNonce: 1,
      wager: '1000000',
      params: { direction: 'under', targetBps: 5000 },
      commitment: '00'.repeat(32),
      expiresAt: '2026-01-01T00:00:00.000Z',
    });
    expect(isHex32(hash)).toBe(true);
  });
});
