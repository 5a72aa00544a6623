// Hex is pinned lowercase (design §4): the table-driven decoder accepts exactly what /^([0-9a-f]{2})*$/ does.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromHex, isHex, toHex } from '../../protocol/encoding.ts';

const reference = (s: string): boolean => /^(?:[0-9a-f]{2})*$/.test(s);

describe('hex', () => {
  it('decodes what it encodes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 80 }), (bytes) => {
        expect(fromHex(toHex(bytes))).toEqual(bytes);
      }),
    );
  });

  it('accepts exactly the lowercase hex the pattern accepts', () => {
    const chars = fc.constantFrom(...'0123456789abcdefABCDEFgxz \u00e9\u0660\u{1f600}'.split(''), '0', 'f');
    fc.assert(
      fc.property(
        fc.array(chars, { maxLength: 70 }).map((a) => a.join('')),
        (s) => {
          const ok = reference(s);
          expect(isHex(s, s.length / 2)).toBe(ok && s.length % 2 === 0);
          if (ok) expect(toHex(fromHex(s))).toBe(s);
          else expect(() => fromHex(s)).toThrow('expected lowercase hex');
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('names the length when hex has the wrong one, and the alphabet otherwise', () => {
    expect(() => fromHex('abcd', 3)).toThrow('expected 3 bytes of hex');
    expect(() => fromHex('ABCD', 3)).toThrow('expected lowercase hex');
    expect(() => fromHex('ABCD', 2)).toThrow('expected lowercase hex');
    expect(() => fromHex('abc')).toThrow('expected lowercase hex');
    expect(() => fromHex(7 as unknown as string)).toThrow('expected lowercase hex');
    expect(isHex('ab', 2)).toBe(false);
    expect(isHex(null, 0)).toBe(false);
    expect(fromHex('00ff', 2)).toEqual(new Uint8Array([0, 255]));
  });
});
