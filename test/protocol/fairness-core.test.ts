import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createHmac } from 'node:crypto';
import { OutcomeStream } from '../../protocol/outcome.ts';
import { DiceRuleError, diceMultiplierBps, dicePayout, settleDice, targetToBps, winningCount } from '../../protocol/dice.ts';
import { SWEEPER_MODES, sweeperMultiplierBps, type SweeperMode } from '../../protocol/sweeper.ts';
import { RngChain, verifyRngLink } from '../../protocol/rng-chain.ts';
import { commitmentOf, verifyCommitment } from '../../protocol/commitment.ts';
import { signAck, verifyAck } from '../../protocol/ack.ts';
import { parseMemo, commitMemo } from '../../protocol/memo.ts';
import { toHex } from '../../protocol/encoding.ts';
import { ed25519PublicKey } from '../../protocol/crypto.ts';
import { toBase58 } from '../../protocol/encoding.ts';
import { createHash } from 'node:crypto';

const hex32 = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => toHex(b));

describe('RNG hash chain', () => {
  const secret = new Uint8Array(32).fill(7);
  const chain = new RngChain({ secret, length: 5000, checkpointInterval: 64 });

  it('links every value to the head: s_{i-1} = sha256(s_i)', () => {
    for (const i of [1, 2, 63, 64, 65, 4999, 5000]) {
      const prev = createHash('sha256').update(chain.value(i)).digest('hex');
      expect(prev).toBe(chain.valueHex(i - 1));
    }
    expect(chain.valueHex(5000)).toBe(toHex(secret));
    expect(chain.headHex).toBe(chain.valueHex(0));
  });

  it('serves values in any order from checkpoints', () => {
    const a = [4000, 3, 2500, 4001, 0].map((i) => chain.valueHex(i));
    const b = [4000, 3, 2500, 4001, 0].map((i) => new RngChain({ secret, length: 5000, checkpointInterval: 1 }).valueHex(i));
    expect(a).toEqual(b);
  });

  it('verifies a reveal against the head or an earlier index only', () => {
    expect(verifyRngLink(chain.valueHex(100), 100, chain.headHex, 0)).toBe(true);
    expect(verifyRngLink(chain.valueHex(100), 100, chain.valueHex(40), 40)).toBe(true);
    expect(verifyRngLink(chain.valueHex(40), 40, chain.valueHex(100), 100)).toBe(false);
    expect(verifyRngLink(chain.valueHex(100), 101, chain.headHex, 0)).toBe(false);
    expect(verifyRngLink('zz', 1, chain.headHex, 0)).toBe(false);
  });

  it('loads from stored checkpoints and refuses a checkpoint that does not link', () => {
    const reloaded = new RngChain({ secret, length: 5000, checkpointInterval: 64, checkpoints: chain.checkpoints() });
    expect([1, 700, 5000].map((i) => reloaded.valueHex(i))).toEqual([1, 700, 5000].map((i) => chain.valueHex(i)));
    const bad = chain.checkpoints().map((c) => c.slice());
    bad[10]![0]! ^= 1;
    const tampered = new RngChain({ secret, length: 5000, checkpointInterval: 64, checkpoints: bad });
    expect(() => tampered.value(10 * 64 + 5)).toThrow(/does not link/);
  });

  it('rejects indices outside the chain', () => {
    expect(() => chain.value(5001)).toThrow(RangeError);
    expect(() => chain.value(-1)).toThrow(RangeError);
  });
});

describe('outcome stream', () => {
  it('reads big-endian words from HMAC(s_i, seed ‖ hash ‖ u32be(counter)) blocks', () => {
    const s = '11'.repeat(32);
    const seed = '22'.repeat(32);
    const hash = '33'.repeat(32);
    const stream = new OutcomeStream(s, seed, hash);
    for (let counter = 0; counter < 2; counter++) {
      const block = createHmac('sha256', Buffer.from(s, 'hex'))
        .update(Buffer.concat([Buffer.from(seed, 'hex'), Buffer.from(hash, 'hex'), Buffer.from([0, 0, 0, counter])]))
        .digest();
      for (let w = 0; w < 8; w++) expect(stream.nextWord()).toBe(block.readUInt32BE(4 * w));
    }
  });

  it('rejects words at or above floor(2^32 / n) * n, with no modulo bias', () => {
    fc.assert(
      fc.property(hex32, hex32, hex32, (s, seed, hash) => {
        const n = 2 ** 31 + 1; // limit = n, so about half the words are rejected
        const words = new OutcomeStream(s, seed, hash);
        let expected = -1;
        for (;;) {
          const w = words.nextWord();
          if (w < n) {
            expected = w % n;
            break;
          }
        }
        expect(new OutcomeStream(s, seed, hash).drawInt(n)).toBe(expected);
      }),
      { numRuns: 200 },
    );
  });

  it('draws dice rolls uniformly on [0, 10000) (chi-square over 100 buckets)', () => {
    const buckets = new Array(100).fill(0);
    const samples = 100_000;
    const seed = '44'.repeat(32);
    for (let i = 0; i < samples; i++) {
      const s = createHash('sha256').update(`rng-${i}`).digest('hex');
      const roll = new OutcomeStream(s, seed, '55'.repeat(32)).drawInt(10_000);
      expect(roll).toBeGreaterThanOrEqual(0);
      expect(roll).toBeLessThan(10_000);
      buckets[Math.floor(roll / 100)]++;
    }
    const expected = samples / 100;
    const chi2 = buckets.reduce((acc, o) => acc + (o - expected) ** 2 / expected, 0);
    // 99 degrees of freedom: the 99.9th percentile is about 148.2.
    expect(chi2).toBeLessThan(148.2);
  });
});

describe('dice rules', () => {
  it('converts targets exactly from their decimal string', () => {
    expect(targetToBps(49.5)).toBe(4950);
    expect(targetToBps(0.29)).toBe(29);
    expect(targetToBps(1)).toBe(100);
    expect(targetToBps(98.99)).toBe(9899);
    for (const bad of [49.555, -1, 100.01, Number.NaN, '50', null]) expect(() => targetToBps(bad)).toThrow(DiceRuleError);
  });

  it('counts winning rolls and keeps c within [100, 9800]', () => {
    expect(winningCount('under', 5000)).toBe(5000);
    expect(winningCount('over', 5000)).toBe(4999);
    expect(() => winningCount('under', 99)).toThrow(DiceRuleError);
    expect(() => winningCount('under', 9801)).toThrow(DiceRuleError);
    expect(() => winningCount('over', 9900)).toThrow(DiceRuleError);
    expect(() => winningCount('sideways', 5000)).toThrow(DiceRuleError);
  });

  it('pays floor(wager × floor(99_000_000 / c) / 10_000)', () => {
    expect(diceMultiplierBps(5000)).toBe(19_800n);
    expect(diceMultiplierBps(4999)).toBe(19_803n);
    expect(diceMultiplierBps(100)).toBe(990_000n);
    expect(dicePayout(1_000_000n, 19_803n)).toBe(1_980_300n);
    expect(dicePayout(3n, 19_803n)).toBe(5n);
  });

  it("never pays more than the bet's maximum payout, which maxPayout bounds", () => {
    fc.assert(
      fc.property(
        hex32,
        hex32,
        hex32,
        fc.integer({ min: 100, max: 9800 }),
        fc.boolean(),
        fc.bigInt({ min: 1n, max: 10n ** 12n }),
        (s, seed, hash, c, under, wager) => {
          const direction = under ? 'under' : 'over';
          const targetBps = under ? c : 9999 - c;
          const outcome = settleDice({ rngValueHex: s, clientSeedRaw: seed, betPayloadHash: hash, direction, targetBps, wagerMicro: wager });
          const maxPayout = dicePayout(wager, diceMultiplierBps(c));
          expect(outcome.payout === 0n || outcome.payout === maxPayout).toBe(true);
          expect(outcome.won).toBe(under ? outcome.roll < targetBps : outcome.roll > targetBps);
        },
      ),
    );
  });
});

describe('sweeper multipliers', () => {
  it.each(Object.keys(SWEEPER_MODES) as SweeperMode[])('%s follows floor(9900 × cols^k / safe^k) for k = 0..8', (mode) => {
    const { columns, mines } = SWEEPER_MODES[mode];
    for (let k = 0; k <= 8; k++) {
      const expected = (9_900n * BigInt(columns) ** BigInt(k)) / BigInt(columns - mines) ** BigInt(k);
      expect(sweeperMultiplierBps(mode, k)).toBe(expected);
    }
  });

  it('pins the full-board multipliers', () => {
    expect(sweeperMultiplierBps('easy', 8)).toBe(98_888n);
    expect(sweeperMultiplierBps('medium', 8)).toBe(253_726n);
    expect(sweeperMultiplierBps('hard', 8)).toBe(2_534_400n);
    expect(sweeperMultiplierBps('hard', 1)).toBe(19_800n);
  });
});

describe('commitments, acks and memos', () => {
  it('commits to the raw seed bytes', () => {
    const seed = '00'.repeat(32);
    expect(commitmentOf(seed)).toBe(createHash('sha256').update(Buffer.alloc(32)).digest('hex'));
    expect(verifyCommitment(seed, commitmentOf(seed))).toBe(true);
    expect(verifyCommitment('01'.repeat(32), commitmentOf(seed))).toBe(false);
    expect(verifyCommitment('00'.repeat(31), commitmentOf(seed))).toBe(false);
  });

  it('signs acks over pfws:v1:ack:<ackHash> and detects any change', () => {
    const seed = new Uint8Array(32).fill(9);
    const pub = toBase58(ed25519PublicKey(seed));
    const ack = signAck(
      {
        betPayloadHash: 'ab'.repeat(32),
        betNonce: 3,
        rngIndex: 17,
        rngChainHead: 'cd'.repeat(32),
        committedAt: '2026-01-01T00:00:00.000Z',
        revealDeadline: '2026-01-02T00:00:00.000Z',
      },
      seed,
    );
    expect(ack.revealMessage).toBe(`pfws:v1:reveal:${'ab'.repeat(32)}:${ack.ackHash}`);
    expect(verifyAck(ack, pub)).toEqual({ ok: true });
    expect(verifyAck({ ...ack, rngIndex: 18 }, pub).ok).toBe(false);
    expect(verifyAck({ ...ack, operatorSignature: signAck({ ...ack, rngIndex: 18 }, seed).operatorSignature }, pub).ok).toBe(false);
  });

  it('parses our memos strictly and round-trips the commit memo', () => {
    const wallet = toBase58(new Uint8Array(32).fill(1));
    expect(parseMemo(`pfws:v1:setup:${wallet}:${wallet}`)).toEqual({ kind: 'setup', wallet, sessionPubkey: wallet });
    expect(parseMemo(`pfws:v1:setup:${wallet}:${wallet} `)).toBeNull();
    expect(parseMemo(`pfws:v1:deposit:${wallet}`)).toEqual({ kind: 'deposit', wallet });
    expect(parseMemo('hello')).toBeNull();
    const memo = {
      entryCount: 12,
      betLogRoot: 'aa'.repeat(32),
      stateRoot: 'bb'.repeat(32),
      totalLiabilities: 123456789n,
      rngIndex: 9,
      rngRevealHex: 'cc'.repeat(32),
      manifestHash: 'dd'.repeat(32),
    };
    expect(parseMemo(commitMemo(memo))).toEqual({ kind: 'commit', ...memo });
  });
});
