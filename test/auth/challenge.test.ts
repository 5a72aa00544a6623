// Stateless sign-in challenges (issue 21): the Sign-In With Solana layout of design §5, and a nonce whose MAC only a
// holder of the shared secret can make, over everything the message says.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ChallengeMac, challengeMessage, parseChallenge } from '../../auth/challenge.ts';

const WALLET = 'HV3TKWHFj3ED23GJeuzzbgco2is3gBCAd5CULKGySrNo';
const OTHER = '7ZMyqhGBzFcrHe8cfANXhTVzhXKqvUxX37iAWVPv9aV8';
const fields = {
  url: 'http://localhost:8080',
  wallet: WALLET,
  cluster: 'localnet',
  issuedAt: '2026-11-23T16:03:47.572Z',
  expiresAt: '2026-11-23T16:08:47.572Z',
};
const mac = new ChallengeMac(randomBytes(32));
const issue = (m = mac, f = fields) => challengeMessage({ ...f, nonce: m.nonce(f) });

describe('the challenge message', () => {
  it('keeps the SIWS layout: domain, wallet, statement, URI, version, chain, nonce, issued and expiration times', () => {
    const message = issue();
    const nonce = parseChallenge(message)!.nonce;
    expect(nonce).toMatch(/^[0-9a-f]{64}$/);
    expect(message).toBe(
      [
        'localhost:8080 wants you to sign in with your Solana account:',
        WALLET,
        '',
        'Sign in to the provably-fair wagering service (Protocol V1).',
        '',
        'URI: http://localhost:8080',
        'Version: 1',
        'Chain ID: localnet',
        `Nonce: ${nonce}`,
        'Issued At: 2026-11-23T16:03:47.572Z',
        'Expiration Time: 2026-11-23T16:08:47.572Z',
      ].join('\n'),
    );
    // Two challenges with the same fields still differ.
    expect(issue()).not.toBe(message);
  });
});

describe('the nonce MAC', () => {
  it('accepts a challenge this secret issued, for its wallet', () => {
    const message = issue();
    expect(mac.verify(message, WALLET)).toEqual({ ...fields, nonce: parseChallenge(message)!.nonce });
  });

  it('refuses another wallet, another secret, and any field changed', () => {
    const message = issue();
    expect(mac.verify(message, OTHER)).toBeNull();
    expect(new ChallengeMac(randomBytes(32)).verify(message, WALLET)).toBeNull();
    const swaps: [string, string][] = [
      [WALLET, OTHER],
      ['Expiration Time: 2026-11-23T16:08:47.572Z', 'Expiration Time: 2027-11-23T16:08:47.572Z'],
      ['Issued At: 2026-11-23T16:03:47.572Z', 'Issued At: 2026-11-23T16:04:47.572Z'],
      ['URI: http://localhost:8080', 'URI: http://evil.example'],
      ['localhost:8080 wants', 'evil.example wants'],
      ['Chain ID: localnet', 'Chain ID: mainnet-beta'],
      ['Sign in to the', 'Sign in to a'],
    ];
    for (const [from, to] of swaps) {
      const changed = message.replace(from, to);
      expect(changed).not.toBe(message);
      expect(mac.verify(changed, WALLET), to).toBeNull();
      expect(mac.verify(changed, OTHER), to).toBeNull();
    }
    // A nonce altered in one digit, cut short, or made up.
    const nonce = parseChallenge(message)!.nonce;
    const flipped = nonce.slice(0, -1) + (nonce.endsWith('0') ? '1' : '0');
    for (const bad of [flipped, nonce.slice(0, 32), randomBytes(32).toString('hex'), nonce.toUpperCase()]) {
      expect(mac.verify(message.replace(nonce, bad), WALLET)).toBeNull();
    }
    // A message issued for another wallet, with this wallet's name swapped in.
    expect(mac.verify(issue(mac, { ...fields, wallet: OTHER }).replace(OTHER, WALLET), WALLET)).toBeNull();
  });

  it('refuses text that is not in the layout', () => {
    for (const text of ['', 'hello', `${issue()}\n`, `x\n${issue()}`, issue().replace('\n', '\r\n')]) expect(mac.verify(text, WALLET)).toBeNull();
  });

  it('needs a 32-byte secret', () => {
    expect(() => new ChallengeMac(new Uint8Array(16))).toThrow(/32 bytes/);
  });
});
