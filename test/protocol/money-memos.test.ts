// The memos of money in and out (design §3): builders and the strict parser agree, and near misses are not ours.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { lpDepositMemo, lpMintMemo, lpPayMemo, lpRedeemMemo, parseMemo, withdrawMemo, x402Memo } from '../../protocol/memo.ts';
import { toBase58 } from '../../protocol/encoding.ts';

const wallet = fc.uint8Array({ minLength: 32, maxLength: 32 }).map(toBase58);
const nonce = fc.uint8Array({ minLength: 16, maxLength: 16 }).map((b) => Buffer.from(b).toString('hex'));

describe('money memos', () => {
  it('round-trip through the parser', () => {
    fc.assert(
      fc.property(wallet, nonce, fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/), (w, n, id) => {
        expect(parseMemo(lpDepositMemo(w))).toEqual({ kind: 'lp-deposit', wallet: w });
        expect(parseMemo(lpRedeemMemo(w))).toEqual({ kind: 'lp-redeem', wallet: w });
        expect(parseMemo(withdrawMemo(id))).toEqual({ kind: 'withdraw', withdrawalId: id });
        expect(parseMemo(lpMintMemo(id))).toEqual({ kind: 'lp-mint', jobId: id });
        expect(parseMemo(lpPayMemo(id))).toEqual({ kind: 'lp-pay', jobId: id });
        expect(parseMemo(x402Memo(w, n))).toEqual({ kind: 'x402', wallet: w, nonceHex: n });
      }),
    );
  });

  it('reject near misses', () => {
    const w = toBase58(new Uint8Array(32).fill(9));
    const n = 'ab'.repeat(16);
    for (const text of [
      `pfws:v1:lp-deposit:${w}:extra`,
      `pfws:v1:lp-redeem:${w} `,
      `pfws:v1:withdraw:${'a'.repeat(65)}`,
      'pfws:v1:withdraw:',
      'pfws:v1:withdraw:a b',
      'pfws:v1:lp-mint:',
      `pfws:v1:lp-pay:${'b'.repeat(65)}`,
      'pfws:v1:lp-burn:abc',
      `pfws:v1:x402:${w}`,
      `pfws:v1:x402:${w}:${n.toUpperCase()}`,
      `pfws:v1:x402:${w}:${n}00`,
      `pfws:v1:x402:not-a-wallet:${n}`,
      `pfws:v2:x402:${w}:${n}`,
    ]) {
      expect(parseMemo(text), text).toBeNull();
    }
  });
});
