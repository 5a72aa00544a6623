// Witnesses (c2sp.org/tlog-witness, tlog-cosignature): the worker's add-checkpoint client against in-test witnesses
// that implement the endpoint as the spec says (409 with the size they hold, the consistency proof checked, a
// cosignature/v1 line back); the cosignatures served with the checkpoint; the verifier's --witness quorum; and the
// checkpoint's signed-note verifier key as the trust root publishes it.
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis } from '../../store/redis.ts';
import { Keys } from '../../store/keys.ts';
import { TransparencyStore } from '../../store/transparency.ts';
import { cosignLatest } from '../../transparency/witnesses.ts';
import { MerkleLog } from '../../protocol/merkle-log.ts';
import { isConsistencyValid, leafHash } from '../../protocol/merkle.ts';
import { openCheckpoint, signCheckpoint } from '../../protocol/checkpoint.ts';
import { ed25519PublicKey } from '../../protocol/crypto.ts';
import { fromBase64, toBase58, toHex, utf8 } from '../../protocol/encoding.ts';
import { openNote, verifierKeyString } from '../../protocol/signed-note.ts';
import { cosignatureLine, cosigningWitnesses, parseWitnessKey, witnessKeyString } from '../../protocol/witness.ts';
import { Checks } from '../../protocol/verify/report.ts';
import { checkWitnesses } from '../../verifier/log.ts';
import type { VerifierContext } from '../../verifier/context.ts';
import * as EX from '../../schemas/examples.ts';

const ORIGIN = 'witness-test.example/api/protocol/v1/bet-log';
const logSeed = randomBytes(32);
const logKey = ed25519PublicKey(logSeed);

/** A witness as c2sp.org/tlog-witness describes it, holding the latest size and root it cosigned per origin. */
function startWitness(name: string) {
  const seed = randomBytes(32);
  const publicKey = ed25519PublicKey(seed);
  const state: { size: number; root: Uint8Array | null; requests: number } = { size: 0, root: null, requests: 0 };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      state.requests++;
      const reply = (status: number, text: string, type = 'text/plain'): void => {
        res.writeHead(status, { 'content-type': type }).end(text);
      };
      if (req.method !== 'POST' || req.url !== '/add-checkpoint') {
        reply(404, 'not found\n');
        return;
      }
      const blank = body.indexOf('\n\n');
      const [oldLine, ...proofLines] = body.slice(0, blank).split('\n');
      const note = body.slice(blank + 2);
      const old = /^old (0|[1-9]\d*)$/.exec(oldLine ?? '');
      if (!old) return reply(400, 'bad old line\n');
      const opened = openNote(note, [{ name: ORIGIN, publicKey: logKey }]);
      if (!opened.ok) return reply(403, 'unknown log key\n');
      const [, sizeText, rootB64] = opened.text.split('\n');
      const size = Number(sizeText);
      const root = fromBase64(rootB64!, 32);
      if (Number(old[1]) !== state.size) return reply(409, `${state.size}\n`, 'text/x.tlog.size');
      if (size < state.size) return reply(409, `${state.size}\n`, 'text/x.tlog.size');
      const proof = proofLines.map((l) => fromBase64(l, 32));
      if (state.root && !isConsistencyValid(state.size, size, proof, state.root, root)) return reply(422, 'inconsistent\n');
      state.size = size;
      state.root = root;
      reply(200, `${cosignatureLine(opened.text, name, seed, publicKey, BigInt(Math.floor(Date.now() / 1000)))}\n`);
    });
  });
  return new Promise<{ vkey: string; url: string; state: typeof state; close: () => Promise<void> }>((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        vkey: witnessKeyString(name, publicKey),
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        state,
        close: () => new Promise((r) => server.close(() => r())),
      }),
    ),
  );
}

describe('witnesses', () => {
  const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const keys = new Keys(`test-witness-${randomBytes(4).toString('hex')}`);
  const store = new TransparencyStore(redis, keys);
  const log = new MerkleLog();
  const logger = pino({ level: 'silent' });
  let alice: Awaited<ReturnType<typeof startWitness>>;
  let bob: Awaited<ReturnType<typeof startWitness>>;
  let down: string;

  const commit = async (size: number) => {
    log.append(Array.from({ length: size - log.size }, (_, i) => leafHash(utf8(`entry ${log.size + i}`))));
    await store.saveCheckpoint(size, signCheckpoint({ origin: ORIGIN, size, rootHex: toHex(log.root(size)) }, logSeed, toBase58(logKey)));
  };
  const cosign = (witnesses: { vkey: string; url: string }[]) =>
    cosignLatest({ transparency: store, consistencyProof: async (a, b) => log.consistencyProof(a, b), witnesses, logger, timeoutMs: 2000 });

  beforeAll(async () => {
    [alice, bob] = await Promise.all([startWitness('alice.example/witness'), startWitness('bob.example/witness')]);
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
    down = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((r) => closed.close(r));
  });
  afterAll(async () => {
    await Promise.all([alice?.close(), bob?.close()]);
    const all = await redis.keys(`${keys.prefix}:*`);
    if (all.length) await redis.del(...all);
    await redis.quit();
  });

  it('keeps the cosignatures witnesses return, serves them with the checkpoint, and asks again after each commit', async () => {
    await commit(5);
    const downKey = witnessKeyString('down.example/witness', ed25519PublicKey(randomBytes(32)));
    expect(await cosign([alice, bob, { vkey: downKey, url: down }])).toBe(2);
    const served = (await store.cosignedCheckpoint())!;
    expect(served.size).toBe(5);
    // The log's own signature still opens the note; the witnesses' lines follow it.
    expect(openCheckpoint(served.note, ORIGIN, toBase58(logKey)).ok).toBe(true);
    const witnessKeys = [alice.vkey, bob.vkey].map(parseWitnessKey);
    expect(cosigningWitnesses(served.note, witnessKeys).sort()).toEqual(['alice.example/witness', 'bob.example/witness']);
    // Nothing new: no witness is asked again.
    const asked = alice.state.requests;
    expect(await cosign([alice, bob])).toBe(0);
    expect(alice.state.requests).toBe(asked);
    // A new commit: each witness gets the consistency proof from the size it cosigned, and checks it.
    await commit(12);
    expect(await cosign([alice, bob])).toBe(2);
    expect(alice.state.size).toBe(12);
    const newer = (await store.cosignedCheckpoint())!;
    expect(cosigningWitnesses(newer.note, witnessKeys)).toHaveLength(2);
    // A cosignature of size 5 is not one of size 12: a checkpoint lists only those of its own size.
    await commit(13);
    expect(cosigningWitnesses((await store.cosignedCheckpoint())!.note, witnessKeys)).toEqual([]);
  });

  it('follows a 409 to the size a witness holds', async () => {
    // The log forgets what bob cosigned (a restored ledger): bob answers 409 with his size, and the proof is sent from there.
    await redis.hdel(keys.betLogCosignatures(), 'bob.example/witness');
    expect(bob.state.size).toBe(12);
    expect(await cosign([bob])).toBe(1);
    expect(bob.state.size).toBe(13);
  });

  it('lets the verifier require a quorum of the witnesses it names', async () => {
    await cosign([alice, bob]);
    const note = (await store.cosignedCheckpoint())!.note;
    const carol = witnessKeyString('carol.example/witness', ed25519PublicKey(randomBytes(32)));
    const run = (vkeys: string[], quorum: number, text: string | null = note) => {
      const checks = new Checks();
      checkWitnesses({ witnesses: { keys: vkeys.map(parseWitnessKey), quorum } } as unknown as VerifierContext, text, checks);
      return checks.list.map((c) => c.status);
    };
    expect(run([alice.vkey, bob.vkey], 2)).toEqual(['pass']);
    expect(run([alice.vkey, bob.vkey, carol], 2)).toEqual(['pass']);
    expect(run([alice.vkey, bob.vkey, carol], 3)).toEqual(['fail']);
    expect(run([carol], 1)).toEqual(['fail']);
    expect(run([alice.vkey], 1, null)).toEqual(['fail']);
    expect(run([], 0)).toEqual([]);
    // A cosignature over another text (a changed size) does not count.
    const [text, sigs] = [note.slice(0, note.lastIndexOf('\n\n') + 1), note.slice(note.lastIndexOf('\n\n') + 1)];
    const forged = text.replace(/\n13\n/, '\n14\n') + sigs;
    expect(run([alice.vkey], 1, forged)).toEqual(['fail']);
    // A vkey whose ID does not match its key is refused.
    expect(() => parseWitnessKey(alice.vkey.replace(/\+[0-9a-f]{8}\+/, '+00000000+'))).toThrow('key ID');
  });

  it("publishes the checkpoint's verifier key as <origin>+<key ID>+<base64(0x01 ‖ key)>, which opens the checkpoint", () => {
    const [vkey] = EX.trustRoot.checkpointVerifierKeys;
    const [, name, id, key] = /^([^+]+)\+([0-9a-f]{8})\+(.+)$/.exec(vkey!) as unknown as [string, string, string, string];
    const raw = Buffer.from(key, 'base64');
    expect(name).toBe(EX.trustRoot.checkpointOrigin);
    expect(raw[0]).toBe(0x01);
    // Key ID written from the spec: SHA-256(name ‖ 0x0A ‖ 0x01 ‖ key)[:4].
    const expectedId = createHash('sha256')
      .update(Buffer.concat([Buffer.from(name), Buffer.from([0x0a]), raw]))
      .digest()
      .subarray(0, 4)
      .toString('hex');
    expect(id).toBe(expectedId);
    expect(toBase58(raw.subarray(1))).toBe(EX.trustRoot.keys.anchor[0]!.publicKey);
    // The same form for this test's log key opens its checkpoint.
    const ours = verifierKeyString({ name: ORIGIN, publicKey: logKey });
    const ourKey = Buffer.from(ours.slice(ours.indexOf('+', ORIGIN.length + 1) + 1), 'base64');
    expect(ourKey[0]).toBe(0x01);
    const note = signCheckpoint({ origin: ORIGIN, size: 3, rootHex: '00'.repeat(32) }, logSeed, toBase58(logKey));
    expect(openNote(note, [{ name: ORIGIN, publicKey: ourKey.subarray(1) }]).ok).toBe(true);
  });
});
