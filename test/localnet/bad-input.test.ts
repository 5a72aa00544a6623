import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fundedSigner, raw, startTestNet, type TestNet } from './helpers.ts';

const METHODS = [
  'getLatestBlockhash',
  'sendTransaction',
  'simulateTransaction',
  'getSignatureStatuses',
  'getAccountInfo',
  'getMultipleAccounts',
  'getBalance',
  'getTokenAccountBalance',
  'getTokenAccountsByOwner',
  'getTokenSupply',
  'getSignaturesForAddress',
  'getTransaction',
  'getSlot',
  'getBlockHeight',
  'getMinimumBalanceForRentExemption',
  'getFeeForMessage',
  'requestAirdrop',
  'getHealth',
  'getVersion',
  'getGenesisHash',
  'getEpochInfo',
  'isBlockhashValid',
];

const ALLOWED_ERRORS = new Set([-32600, -32602, -32002, -32003, -32015, -32016]);

describe('localnet: hostile input', () => {
  let net: TestNet;
  let known: string;

  beforeAll(async () => {
    net = await startTestNet();
    known = (await fundedSigner(net.rpc, 1n)).address;
  });

  afterAll(async () => {
    await net.dispose();
  });

  it('answers every method with a result or a client error for arbitrary params, and stays up', async () => {
    const scalar = fc.oneof(
      fc.constant(null),
      fc.boolean(),
      fc.integer(),
      fc.double(),
      fc.string(),
      fc.constant(known),
      fc.constant('A'.repeat(5000)),
      fc.constant(2 ** 64),
      fc.constant(-1),
      fc.base64String(),
    );
    const value = fc.oneof(
      scalar,
      fc.array(scalar, { maxLength: 4 }),
      fc.dictionary(
        fc.constantFrom(
          'encoding',
          'limit',
          'before',
          'until',
          'commitment',
          'dataSlice',
          'skipPreflight',
          'sigVerify',
          'replaceRecentBlockhash',
          'maxSupportedTransactionVersion',
          'minContextSlot',
          'accounts',
          'mint',
          'programId',
        ),
        scalar,
      ),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...METHODS), fc.oneof(fc.array(value, { maxLength: 3 }), value), async (method, params) => {
        const res = await raw(net.ln.url, method, params);
        if (res.error) {
          expect(ALLOWED_ERRORS.has(res.error.code), `${method} ${JSON.stringify(params)} -> ${JSON.stringify(res.error)}`).toBe(true);
        } else {
          expect(res).toHaveProperty('result');
        }
      }),
      { numRuns: 400 },
    );
    expect(await net.rpc.getHealth().send()).toBe('ok');
    expect((await net.rpc.getBalance(known as never).send()).value).toBe(1_000_000_000n);
  });
});
