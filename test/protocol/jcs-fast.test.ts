// The JCS fast path (plain JSON values, no surrogate scan) must write exactly what the library writes, and leave
// everything else to it: lone surrogates and non-finite numbers refused, valid pairs, toJSON, undefined members.
import fc from 'fast-check';
import canonicalizeLibrary from 'canonicalize';
import { describe, expect, it } from 'vitest';
import { canonicalize } from '../../protocol/jcs.ts';

const library = canonicalizeLibrary as unknown as (value: unknown) => string | undefined;

describe('canonicalize', () => {
  it('writes what the library writes for any JSON value, any string (lone surrogates included) and number', () => {
    const value = fc.letrec((tie) => ({
      leaf: fc.oneof(fc.string({ unit: 'binary' }), fc.string(), fc.double(), fc.integer(), fc.boolean(), fc.constant(null), fc.constant(undefined)),
      node: fc.oneof({ depthSize: 'small' }, tie('leaf'), fc.array(tie('node')), fc.dictionary(fc.string({ unit: 'binary' }), tie('node'))),
    })).node;
    fc.assert(
      fc.property(value, (v) => {
        let expected: string | Error;
        try {
          expected = library(v) ?? new Error('no form');
        } catch (err) {
          expected = err as Error;
        }
        if (expected instanceof Error) expect(() => canonicalize(v)).toThrow();
        else expect(canonicalize(v)).toBe(expected);
      }),
      { numRuns: 500 },
    );
  });

  it('refuses lone surrogates and non-finite numbers, keeps valid pairs, and applies toJSON', () => {
    expect(() => canonicalize({ a: '\uD800' })).toThrow('Lone surrogate');
    expect(() => canonicalize({ '\uDC00': 1 })).toThrow('Lone surrogate');
    expect(() => canonicalize([1, Number.NaN])).toThrow('NaN');
    expect(() => canonicalize({ a: Number.POSITIVE_INFINITY })).toThrow('Infinity');
    expect(canonicalize({ b: '\uD83D\uDE00', a: [1e21, -0, 0.1] })).toBe('{"a":[1e+21,0,0.1],"b":"\uD83D\uDE00"}');
    expect(canonicalize({ d: new Date(0), u: undefined })).toBe('{"d":"1970-01-01T00:00:00.000Z"}');
  });
});
