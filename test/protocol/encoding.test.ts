// Hex is pinned lowercase (design §4): the table-driven decoder accepts exactly what /^([0-9a-f]{2})*$/ does.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { base64 } from '@scure/base';
import { fromBase64, fromHex, isHex, toBase64, toHex } from '../../protocol/encoding.ts';

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

// Signatures are decoded with the platform's atob: it must accept exactly the canonical padded base64 that
// @scure/base's strict decoder accepts, and give the same bytes.
describe('base64', () => {
  const scure = (s: string): Uint8Array | null => {
    try {
      return base64.decode(s);
    } catch {
      return null;
    }
  };
  const ours = (s: string): Uint8Array | null => {
    try {
      return fromBase64(s);
    } catch {
      return null;
    }
  };

  it('decodes what it encodes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 80 }), (bytes) => {
        expect(fromBase64(toBase64(bytes))).toEqual(bytes);
      }),
    );
  });

  it('accepts exactly what the strict decoder accepts', () => {
    const chars = fc.constantFrom(...'ABCDQRSTwxyz0189+/=-_ \n\u00e9'.split(''));
    const mutated = fc.tuple(fc.uint8Array({ maxLength: 70 }), fc.nat(), fc.string({ unit: chars, maxLength: 3 })).map(([bytes, at, insert]) => {
      const text = toBase64(bytes);
      const i = at % (text.length + 1);
      return text.slice(0, i) + insert + text.slice(i + (at % 2));
    });
    fc.assert(
      fc.property(fc.oneof(mutated, fc.string({ unit: chars, maxLength: 12 })), (text) => {
        expect(ours(text)).toEqual(scure(text));
      }),
      { numRuns: 5000 },
    );
    // Set padding bits, missing padding and whitespace, which atob alone would take.
    for (const text of ['QQ==', 'QR==', 'QQ', 'QUI=', 'QUJ=', ' QQ==', 'QQ==\n', 'Q Q==']) expect(ours(text)).toEqual(scure(text));
  });

  it('holds a signature to its length', () => {
    expect(() => fromBase64(toBase64(new Uint8Array(63)), 64)).toThrow(/64 bytes/);
    expect(() => fromBase64(7 as unknown as string)).toThrow(TypeError);
  });
});
