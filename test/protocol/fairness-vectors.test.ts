// Our published fairness vectors (test/vectors/fairness.json): every value is recomputed and every signature checked.
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ed25519PublicKey } from '../../protocol/crypto.ts';
import { fromHex, toBase58, utf8 } from '../../protocol/encoding.ts';
import { canonicalize } from '../../protocol/jcs.ts';
import { betPayloadHashOf, type BetPayload } from '../../protocol/bet-payload.ts';
import { verifyAck, type Ack } from '../../protocol/ack.ts';
import { verifyBase64Signature, verifySessionSignature } from '../../protocol/signatures.ts';
import { verifyCommitment } from '../../protocol/commitment.ts';
import { verifyRngLink } from '../../protocol/rng-chain.ts';
import { settleDice } from '../../protocol/dice.ts';
import { OutcomeStream } from '../../protocol/outcome.ts';
import { SWEEPER_MODES, sweeperMineColumn, sweeperMultiplierBps, sweeperPayout, type SweeperMode } from '../../protocol/sweeper.ts';

const v = JSON.parse(readFileSync(new URL('../vectors/fairness.json', import.meta.url), 'utf8'));

interface SignedBet {
  betPayload: BetPayload;
  betPayloadJcs: string;
  betPayloadHash: string;
  sessionSignature: string;
  ack: Ack;
  revealSignature: string;
  rngReveal: string;
  clientSeedRaw?: string;
}

function checkSignedBet(bet: SignedBet, clientSeedRaw: string, rngIndex: number) {
  expect(canonicalize(bet.betPayload)).toBe(bet.betPayloadJcs);
  expect(createHash('sha256').update(bet.betPayloadJcs).digest('hex')).toBe(bet.betPayloadHash);
  expect(betPayloadHashOf(bet.betPayload)).toBe(bet.betPayloadHash);
  expect(verifyCommitment(clientSeedRaw, bet.betPayload.commitment)).toBe(true);
  expect(verifySessionSignature(bet.betPayloadHash, bet.sessionSignature, v.keys.sessionPubkey)).toBe(true);
  expect(verifyAck(bet.ack, v.keys.ackPublicKey)).toEqual({ ok: true });
  expect(bet.ack.rngIndex).toBe(rngIndex);
  expect(bet.ack.rngChainHead).toBe(v.rngChain.head);
  expect(bet.ack.revealMessage).toBe(`pfws:v1:reveal:${bet.betPayloadHash}:${bet.ack.ackHash}`);
  expect(verifyBase64Signature(bet.revealSignature, utf8(bet.ack.revealMessage), v.keys.sessionPubkey)).toBe(true);
  expect(verifyRngLink(bet.rngReveal, rngIndex, v.rngChain.head, 0)).toBe(true);
  expect(bet.rngReveal).toBe(v.rngChain.values[rngIndex]);
}

describe('fairness vectors', () => {
  it('keys derive from their seeds', () => {
    expect(toBase58(ed25519PublicKey(fromHex(v.keys.sessionSeedHex)))).toBe(v.keys.sessionPubkey);
    expect(toBase58(ed25519PublicKey(fromHex(v.keys.ackSeedHex)))).toBe(v.keys.ackPublicKey);
  });

  it('the RNG chain: s_{i-1} = sha256(s_i), s_N is the secret, s_0 is the head', () => {
    const values: string[] = v.rngChain.values;
    expect(values[v.rngChain.length]).toBe(v.rngChain.secretHex);
    expect(values[0]).toBe(v.rngChain.head);
    for (let i = 1; i < values.length; i++) expect(createHash('sha256').update(Buffer.from(values[i]!, 'hex')).digest('hex')).toBe(values[i - 1]);
  });

  it('rejection sampling skips a word at or above floor(2^32 / n) * n', () => {
    const r = v.rejectionSampling;
    const stream = new OutcomeStream(r.rngValue, r.clientSeedRaw, r.betPayloadHash);
    expect(stream.nextWord()).toBe(r.firstWord);
    expect(r.firstWord).toBeGreaterThanOrEqual(r.n);
    expect(new OutcomeStream(r.rngValue, r.clientSeedRaw, r.betPayloadHash).drawInt(r.n)).toBe(r.draw);
  });

  it.each(v.dice.map((d: unknown, i: number) => [i, d]) as [number, any][])('dice vector %i', (_i, d) => {
    checkSignedBet(d, d.input.clientSeedRaw, d.input.rngIndex);
    const outcome = settleDice({
      rngValueHex: d.rngReveal,
      clientSeedRaw: d.input.clientSeedRaw,
      betPayloadHash: d.betPayloadHash,
      direction: d.input.direction,
      targetBps: d.input.targetBps,
      wagerMicro: BigInt(d.input.wager),
    });
    expect(outcome.roll).toBe(d.outcome.roll);
    expect(outcome.won).toBe(d.outcome.won);
    expect(outcome.payout.toString()).toBe(d.outcome.payout);
    expect(outcome.multiplierBps.toString()).toBe(d.outcome.multiplierBps);
    expect(BigInt(d.outcome.payout)).toBe(d.outcome.won ? (BigInt(d.input.wager) * BigInt(d.outcome.multiplierBps)) / 10_000n : 0n);
  });

  it('the vectors include wins and losses', () => {
    const won = v.dice.map((d: any) => d.outcome.won);
    expect(won).toContain(true);
    expect(won).toContain(false);
  });

  it('sweeper multipliers follow floor(9900 × cols^k / safe^k)', () => {
    for (const mode of Object.keys(SWEEPER_MODES) as SweeperMode[]) {
      expect(v.sweeper.multipliers[mode]).toEqual(Array.from({ length: 9 }, (_, k) => sweeperMultiplierBps(mode, k).toString()));
    }
  });

  it.each(v.sweeper.tickets.map((t: any) => [t.plan, t]) as [string, any][])('sweeper ticket: %s', (_plan, t) => {
    let rowsWon = 0;
    const columns: number[] = [];
    for (const turn of t.turns) {
      checkSignedBet(turn, turn.clientSeedRaw, turn.rngIndex);
      expect(turn.betPayload.params.ticketId).toBe(t.ticketId);
      if (turn.betPayload.params.turn === 'cashout') {
        expect(turn.betPayload.params.rowsWon).toBe(rowsWon);
        continue;
      }
      expect(turn.betPayload.params.row).toBe(rowsWon);
      const mine = sweeperMineColumn({ rngValueHex: turn.rngReveal, clientSeedRaw: turn.clientSeedRaw, betPayloadHash: turn.betPayloadHash, mode: t.mode });
      expect(mine).toBe(turn.mineColumn);
      columns.push(mine);
      if (mine === turn.betPayload.params.choiceColumn) break;
      rowsWon++;
    }
    expect(t.result.rowsWon).toBe(rowsWon);
    expect(t.result.resultColumns).toEqual(columns);
    const expected = t.result.outcome === 'busted' ? 0n : sweeperPayout(BigInt(t.wager), t.mode, rowsWon);
    expect(t.result.payout).toBe(expected.toString());
  });

  it('cover a bust, a cashout and a cleared board', () => {
    expect(v.sweeper.tickets.map((t: any) => t.result.outcome)).toEqual(['busted', 'cashed_out', 'cleared']);
  });
});
