// protocol/jcs.ts serializes plain values itself (no per-character surrogate scan); it must stay byte for byte the
// `canonicalize` library's on every value, and throw where the library throws. The RFC 8785 vectors run through it
// in rfc-vectors.test.ts.
import canonicalizeImport from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalize } from '../../protocol/jcs.ts';

const library = canonicalizeImport as unknown as (value: unknown) => string | undefined;

/** The library's answer, or its error's message; ours wraps "no JSON form" (undefined) in a TypeError. */
function outcome(fn: (v: unknown) => string | undefined, value: unknown): string {
  try {
    const text = fn(value);
    return text === undefined ? 'throws: no JSON form' : text;
  } catch (err) {
    return `throws: ${(err as Error).message}`;
  }
}
const ours = (value: unknown) => outcome((v) => canonicalize(v), value).replace('throws: value has no canonical JSON form', 'throws: no JSON form');

const anyString = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), fc.constantFrom('\ud800', 'a\udc00b', '\ud83d\ude00'));
const leaf = fc.oneof(
  anyString,
  fc.double(),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(undefined, Number.NaN, Number.POSITIVE_INFINITY, -0, 1e21, 5e-324),
);
const value = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: 'small' }, leaf, tie('array'), tie('object')),
  array: fc.array(tie('node'), { maxLength: 6 }),
  object: fc.dictionary(anyString, tie('node'), { maxKeys: 6 }),
})).node;

describe('the JCS fast path', () => {
  it('gives the library’s bytes, or throws where it throws, on arbitrary values (unicode, lone surrogates, NaN, undefined)', () => {
    fc.assert(
      fc.property(value, (v) => {
        expect(ours(v)).toBe(outcome(library, v));
      }),
      { numRuns: 3_000 },
    );
  });

  it('gives the library’s bytes on objects of the same keys met again: in the same order, in other orders, with other values', () => {
    // Key lists are sorted once and remembered: every object here has a list seen before, in one order or another.
    const keys = ['wager', 'betNonce', 'a\u0000', 'é', 'Z', '10', '9', '\ud83d\ude00', ''];
    const orders = [keys, [...keys].reverse(), [...keys.slice(3), ...keys.slice(0, 3)]];
    const values: unknown[] = [1, 'x', null, undefined, [1, { b: 2, a: 1 }], { '\ud800': 1 }];
    for (let round = 0; round < 3; round++) {
      for (const order of orders) {
        for (const v of values) {
          const object = Object.fromEntries(order.map((k, i) => [k, i % 2 ? v : `${k}${round}`]));
          expect(ours(object)).toBe(outcome(library, object));
        }
      }
    }
    // A key list that cannot be taken fast (a lone surrogate) is left to the library each time.
    for (let round = 0; round < 3; round++) expect(ours({ b: 1, '\udc00': 2 })).toBe(outcome(library, { b: 1, '\udc00': 2 }));
  });

  it('quotes a string without escapes as is, and escapes every character JSON.stringify escapes, in values and keys', () => {
    const escaped = ['"', '\\', '\u007f', '\u2028', '\u2029', '\u00e9', ...Array.from({ length: 32 }, (_, c) => String.fromCharCode(c))];
    for (const c of escaped) {
      for (const text of [c, `a${c}`, `${c}z`, `0123${c}${c}abcd`]) {
        expect(ours(text)).toBe(outcome(library, text));
        expect(ours({ [text]: text, b: [text] })).toBe(outcome(library, { [text]: text, b: [text] }));
      }
    }
    for (const text of [
      '',
      'dice_54ff34811e8d1b56',
      '2026-11-26T17:17:39.795Z',
      'naa+MmcdP15G/TwHygUgISDB6rEjEnghedG2Tvzf4LU5JYfzIrcpvdY/0QdljPIhszc7jrKW8s8RwQAWs+TeAA==',
    ]) {
      expect(ours(text)).toBe(JSON.stringify(text));
      expect(ours(text)).toBe(outcome(library, text));
    }
  });

  it('leaves what is not a plain value to the library: toJSON, class instances, sparse arrays, cycles, deep nesting', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    let deep: unknown = 'x';
    for (let i = 0; i < 200; i++) deep = { k: [deep] };
    const cases: unknown[] = [
      { at: new Date(0) },
      { toJSON: () => ({ b: 2, a: 1 }) },
      new (class Thing {
        b = 1;
        a = '\u00e9';
      })(),
      // biome-ignore lint/suspicious/noSparseArray: the hole is the case
      [1, , 3],
      [undefined, () => 1, Symbol('s')],
      { f: () => 1, s: Symbol('s'), u: undefined, n: null },
      Object.assign(Object.create(null), { z: 1, a: [true, false] }),
      cyclic,
      deep,
      10n,
      undefined,
    ];
    for (const c of cases) expect(ours(c)).toBe(outcome(library, c));
  });

  it('sorts keys by UTF-16 code units, as RFC 8785 does', () => {
    expect(canonicalize({ '\u20ac': 1, '\r': 2, '\ud83d\ude00': 3, '\ufb33': 4, '1': 5, a: 6 })).toBe(
      '{"\\r":2,"1":5,"a":6,"\u20ac":1,"\ud83d\ude00":3,"\ufb33":4}',
    );
  });
});
