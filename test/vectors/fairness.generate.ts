// Regenerates test/vectors/fairness.json from fixed inputs: `npx tsx test/vectors/fairness.generate.ts`.
// The file is published for third-party verifiers; changing its bytes is a protocol change.
import { writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { RngChain } from '../../protocol/rng-chain.ts';
import { commitmentOf } from '../../protocol/commitment.ts';
import { ed25519PublicKey } from '../../protocol/crypto.ts';
import { toBase58, toHex, fromHex } from '../../protocol/encoding.ts';
import { betPayloadHashOf, type BetPayload, type SweeperTurnParams } from '../../protocol/bet-payload.ts';
import { signAck } from '../../protocol/ack.ts';
import { signBytes, signText } from '../../protocol/signatures.ts';
import { settleDice, targetToBps, winningCount, diceMultiplierBps } from '../../protocol/dice.ts';
import { SWEEPER_MODES, sweeperMineColumn, sweeperMultiplierBps, sweeperPayout, type SweeperMode } from '../../protocol/sweeper.ts';
import { OutcomeStream } from '../../protocol/outcome.ts';
import { canonicalize } from '../../protocol/jcs.ts';

const seedOf = (label: string) => createHash('sha256').update(`pfws fairness vectors: ${label}`).digest('hex');
const chainSecret = fromHex(seedOf('rng chain secret'));
const chain = new RngChain({ secret: chainSecret, length: 64, checkpointInterval: 8 });
const sessionSeed = fromHex(seedOf('session key'));
const ackSeed = fromHex(seedOf('ack key'));
const sessionPubkey = toBase58(ed25519PublicKey(sessionSeed));
const ackPublicKey = toBase58(ed25519PublicKey(ackSeed));
const committedAt = '2026-01-01T00:00:00.000Z';
const revealDeadline = '2026-01-02T00:00:00.000Z';
const expiresAt = '2026-01-01T00:05:00.000Z';

function signedBet(payload: BetPayload, rngIndex: number) {
  const betPayloadHash = betPayloadHashOf(payload);
  const ack = signAck({ betPayloadHash, betNonce: payload.betNonce, rngIndex, rngChainHead: chain.headHex, committedAt, revealDeadline }, ackSeed);
  return {
    betPayloadJcs: canonicalize(payload),
    betPayloadHash,
    sessionSignature: signBytes(fromHex(betPayloadHash), sessionSeed),
    ack,
    revealSignature: signText(ack.revealMessage, sessionSeed),
    rngReveal: chain.valueHex(rngIndex),
  };
}

const dice = [
  { direction: 'under', target: 50, wager: '1000000' },
  { direction: 'over', target: 49.5, wager: '2500000' },
  { direction: 'under', target: 1, wager: '1' },
  { direction: 'over', target: 1.99, wager: '3333333' },
  { direction: 'under', target: 98, wager: '100000000' },
  { direction: 'over', target: 98.99, wager: '7' },
  { direction: 'under', target: 33.33, wager: '123456' },
  { direction: 'over', target: 75.25, wager: '999999' },
].map((input, n) => {
  const clientSeedRaw = seedOf(`dice client seed ${n}`);
  const targetBps = targetToBps(input.target);
  const payload: BetPayload = {
    protocol: 'pfws/v1',
    game: 'dice',
    player: 'p_vectors',
    sessionPubkey,
    betNonce: n,
    wager: input.wager,
    params: { direction: input.direction as 'under' | 'over', targetBps },
    commitment: commitmentOf(clientSeedRaw),
    expiresAt,
  };
  const rngIndex = n + 1;
  const bet = signedBet(payload, rngIndex);
  const outcome = settleDice({ rngValueHex: bet.rngReveal, clientSeedRaw, betPayloadHash: bet.betPayloadHash, direction: payload.params.direction, targetBps, wagerMicro: BigInt(input.wager) });
  return {
    input: { ...input, targetBps, clientSeedRaw, rngIndex },
    betPayload: payload,
    ...bet,
    outcome: {
      winningCount: winningCount(payload.params.direction, targetBps),
      multiplierBps: diceMultiplierBps(winningCount(payload.params.direction, targetBps)).toString(),
      roll: outcome.roll,
      won: outcome.won,
      payout: outcome.payout.toString(),
    },
  };
});

let nextIndex = 20;
// Each ticket's columns are chosen from the revealed mines, so the vectors show a bust, a cashout and a clear.
function ticket(mode: SweeperMode, wager: string, plan: 'bust' | 'cashout' | 'clear', label: string) {
  const ticketId = `t_vectors_${label}`;
  const turns = [];
  let rowsWon = 0;
  let outcome = 'running';
  for (let step = 0; outcome === 'running'; step++) {
    const cashout = plan === 'cashout' && rowsWon === 3;
    const rngIndex = nextIndex++;
    let params: SweeperTurnParams;
    let choiceColumn: number | null = null;
    let mineColumn: number | null = null;
    let attempt = 0;
    let bet: ReturnType<typeof signedBet>;
    let clientSeedRaw: string;
    for (;;) {
      clientSeedRaw = seedOf(`sweeper ${label} turn ${step} attempt ${attempt}`);
      choiceColumn = cashout ? null : attempt % SWEEPER_MODES[mode].columns;
      params = cashout ? { ticketId, mode, turn: 'cashout', rowsWon } : { ticketId, mode, turn: 'choice', row: rowsWon, choiceColumn: choiceColumn! };
      const payload: BetPayload = {
        protocol: 'pfws/v1', game: 'sweeper', player: 'p_vectors', sessionPubkey, betNonce: 100 + rngIndex, wager,
        params, commitment: commitmentOf(clientSeedRaw), expiresAt,
      };
      bet = signedBet(payload, rngIndex);
      if (cashout) break;
      mineColumn = sweeperMineColumn({ rngValueHex: bet.rngReveal, clientSeedRaw, betPayloadHash: bet.betPayloadHash, mode });
      const wantSafe = !(plan === 'bust' && rowsWon === 2);
      if ((mineColumn !== choiceColumn) === wantSafe) break;
      attempt++;
    }
    if (cashout) outcome = 'cashed_out';
    else if (mineColumn === choiceColumn) outcome = 'busted';
    else if (++rowsWon === 8) outcome = 'cleared';
    turns.push({ clientSeedRaw: clientSeedRaw!, rngIndex, betPayload: JSON.parse(bet!.betPayloadJcs), ...bet!, choiceColumn, mineColumn, safe: cashout ? null : mineColumn !== choiceColumn });
  }
  const payout = outcome === 'busted' ? 0n : sweeperPayout(BigInt(wager), mode, rowsWon);
  return { ticketId, mode, wager, plan, turns, result: { outcome, rowsWon, resultColumns: turns.filter((t) => t.mineColumn !== null).map((t) => t.mineColumn), payout: payout.toString() } };
}

const rejection = (() => {
  // n = 2^31 + 1 makes floor(2^32 / n) * n = n, so about half the words are rejected; find a case that rejects.
  const n = 2 ** 31 + 1;
  for (let k = 0; ; k++) {
    const s = seedOf(`rejection ${k}`);
    const c = seedOf(`rejection seed ${k}`);
    const h = seedOf(`rejection hash ${k}`);
    const words = new OutcomeStream(s, c, h);
    const first = words.nextWord();
    if (first >= n) return { rngValue: s, clientSeedRaw: c, betPayloadHash: h, n, firstWord: first, draw: new OutcomeStream(s, c, h).drawInt(n) };
  }
})();

const vectors = {
  description: 'pfws/v1 fairness vectors (design §4): RNG hash chain, commitments, bet payloads and hashes, acks and signatures, dice rolls and payouts, Sweeper mine columns, tickets and multipliers.',
  version: 1,
  keys: { sessionSeedHex: toHex(sessionSeed), sessionPubkey, ackSeedHex: toHex(ackSeed), ackPublicKey },
  rngChain: { secretHex: toHex(chainSecret), length: 64, head: chain.headHex, values: Array.from({ length: 65 }, (_, i) => chain.valueHex(i)) },
  rejectionSampling: rejection,
  dice,
  sweeper: {
    multipliers: Object.fromEntries((Object.keys(SWEEPER_MODES) as SweeperMode[]).map((m) => [m, Array.from({ length: 9 }, (_, k) => sweeperMultiplierBps(m, k).toString())])),
    tickets: [ticket('medium', '2000000', 'bust', 'bust'), ticket('hard', '3000000', 'cashout', 'cashout'), ticket('easy', '1000000', 'clear', 'clear')],
  },
};
writeFileSync(new URL('./fairness.json', import.meta.url), `${JSON.stringify(vectors, null, 2)}\n`);
console.log('wrote test/vectors/fairness.json');
