// Verifier benchmark: receipts checked per second offline (data already fetched), on the frozen v1 receipts.
import { readFileSync } from 'node:fs';
import { cryptoBackend, setCryptoBackend } from '../protocol/crypto.ts';
import { nodeBackend } from '../protocol/crypto-node.ts';
import { memosSignedBy, type RpcTransaction } from '../protocol/verify/chain.ts';
import { RngAnchors } from '../protocol/verify/rng.ts';
import { verifyReceipt } from '../protocol/verify/receipt.ts';

const RECEIPTS = 20_000;

interface Fixture {
  config: { operatorPublicKey: string; ackPublicKey: string };
  receipts: unknown[];
  transactions: Record<string, RpcTransaction>;
}

export async function benchVerify(): Promise<Record<string, number>> {
  const previous = cryptoBackend();
  setCryptoBackend(nodeBackend);
  try {
    const fixture = JSON.parse(readFileSync(new URL('../test/fixtures/verify/v1.json', import.meta.url), 'utf8')) as Fixture;
    const { operatorPublicKey, ackPublicKey } = fixture.config;
    const heads = Object.values(fixture.transactions)
      .flatMap((tx) => memosSignedBy(tx, operatorPublicKey))
      .flatMap((m) => (m.memo.kind === 'rng-head' ? [m.memo.headHex] : []));
    const commitTx = (s: string) => fixture.transactions[s];
    // Real receipts, cycled; each cycle starts from fresh RNG anchors so links are walked from the head.
    let context = { ackPublicKey, operatorPublicKey, rng: new RngAnchors(), commitTx };
    const started = process.hrtime.bigint();
    for (let i = 0; i < RECEIPTS; i++) {
      const k = i % fixture.receipts.length;
      if (k === 0) {
        context = { ...context, rng: new RngAnchors() };
        for (const h of heads) context.rng.addHead(h);
      }
      if (!verifyReceipt(fixture.receipts[k], context).ok) throw new Error(`receipt ${k} failed to verify`);
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    return { 'verify.receiptsPerSec': Math.round(RECEIPTS / seconds) };
  } finally {
    setCryptoBackend(previous);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const [name, value] of Object.entries(await benchVerify())) console.log(`${name.padEnd(24)} ${value}`);
}
