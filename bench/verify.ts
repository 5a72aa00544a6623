/**
 * Verifier benchmark.
 * - `verify.receiptsPerSec`: the core alone, one thread, on the frozen v1 receipts (data already fetched).
 * - `verify.entriesPerSec.100k`: the installed CLI's `all` against a service holding 100,000 anchored
 *   entries, read through tiles, on every core (worker threads); the whole run, start to verdict.
 * - `verify.cpuUsPerEntry.100k`: that run's CPU time (all threads) per entry, in microseconds; and
 *   `verify.cliCapacityEntriesPerSec`, the rate every core could sustain at that cost with no service beside it.
 * - `verify.monitorPollMs.*`: a monitor poll that finds 1,000 new entries, at about 10k and at about
 *   100k entries, and one that finds none: its cost follows what is new, not the log's size. Each is the median
 *   of five polls, as a fresh process (`monitor --once`), from the same saved state.
 * - `verify.ratioToSigCeiling`: `verify.entriesPerSec.100k` over the ceiling below; `verify.cpuOverSigs`: the CPU per entry
 *   over three `verify.ed25519VerifyUs` (the issue-26 goals: at least 0.6, at most 1.5).
 * - `verify.serviceCpuUsPerEntry.100k`: the service's CPU (main and API processes, all threads) over that audit, per
 *   entry: the tiles and receipt bundles it serves, and whatever else it runs meanwhile, on the cores the CLI shares.
 * - `verify.ed25519VerifyUs` and `verify.sigCeilingEntriesPerSec`: one strict Ed25519 verification with the
 *   CLI's backend (the mean of two timings, right before and right after the audit of 100k entries), and the
 *   entries per second that every core could verify if a Dice entry's three signatures (commit, ack, reveal)
 *   were all the work there is: the bound any other cost lowers.
 * @module
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { cryptoBackend, setCryptoBackend } from '../protocol/crypto.ts';
import { nodeBackend } from '../protocol/crypto-node.ts';
import { memosSignedBy, type RpcTransaction } from '../protocol/verify/chain.ts';
import { RngAnchors } from '../protocol/verify/rng.ts';
import { verifyReceipt } from '../protocol/verify/receipt.ts';
import { ed25519Verify } from '../protocol/crypto.ts';
import { installCrypto } from '../verifier/crypto.ts';
import { Keys } from '../store/keys.ts';
import { Player } from '../test/helpers/player.ts';
import { removeKeys } from '../chaos/redis-keys.ts';
import { startBenchService } from './service.ts';
import { appendDiceBets, type SyntheticPlayer } from './verify-data.ts';

const RECEIPTS = 20_000;
const POLLS = 5;
const run = promisify(execFile);

/** CPU time (user + system, ms) of this process's finished children: the CLI and all its threads. */
function childrenCpuMs(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

interface Fixture {
  config: { operatorPublicKey: string; ackPublicKey: string };
  receipts: unknown[];
  transactions: Record<string, RpcTransaction>;
}

function offlineReceiptsPerSec(): number {
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
  return Math.round(RECEIPTS / (Number(process.hrtime.bigint() - started) / 1e9));
}

/** {@link ed25519VerifyUs}, the backend in use before put back. */
function timedVerifyUs(): number {
  const before = cryptoBackend();
  try {
    return ed25519VerifyUs();
  } finally {
    setCryptoBackend(before);
  }
}

/** Microseconds per strict Ed25519 verification with the backend the CLI installs (libsodium when present). */
function ed25519VerifyUs(): number {
  installCrypto();
  const seed = new Uint8Array(32).fill(7);
  const publicKey = cryptoBackend().ed25519PublicKey(seed);
  const messages = Array.from({ length: 256 }, (_, i) => new Uint8Array(32).fill(i));
  const signatures = messages.map((m) => cryptoBackend().ed25519Sign(m, seed));
  const rounds = 20_000;
  const started = process.hrtime.bigint();
  for (let i = 0; i < rounds; i++) if (!ed25519Verify(signatures[i % 256]!, messages[i % 256]!, publicKey)) throw new Error('a valid signature failed');
  return Number(process.hrtime.bigint() - started) / 1000 / rounds;
}

/**
 * Waits until the worker has anchored (and signed a checkpoint for) every entry, and has archived them all
 * into ClickHouse: entries written here in bulk leave the archiver a catch-up that live play never does,
 * and the timed audit must not share the cores with it.
 */
async function waitAnchored(redis: Redis, keys: Keys, pid: number, timeoutMs = 600_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch {
      throw new Error('the bench service exited');
    }
    const [size, state, checkpoint, archived] = await Promise.all([
      redis.llen(keys.betLog()),
      redis.hmget(keys.anchor(), 'committedSize', 'filled'),
      redis.zrange(keys.betLogCheckpoints(), '-1', '-1', 'WITHSCORES'),
      redis.hget(keys.archiveProgress(), 'anchored'),
    ]);
    if (Number(state[0]) === size && Number(state[1]) === size && Number(checkpoint[1]) === size && Number(archived) === size) return;
    if (Date.now() > deadline) throw new Error(`anchoring and archiving did not finish (committed ${state[0]}, archived ${archived}, of ${size})`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

export async function benchVerify(): Promise<Record<string, number>> {
  const previous = cryptoBackend();
  setCryptoBackend(nodeBackend);
  const figures: Record<string, number> = {};
  try {
    figures['verify.receiptsPerSec'] = offlineReceiptsPerSec();
  } finally {
    setCryptoBackend(previous);
  }

  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pfws-bench-verify-'));
  const prefix = `bench-verify-${randomBytes(4).toString('hex')}`;
  const state = mkdtempSync(path.join(os.tmpdir(), 'pfws-bench-verify-state-'));
  const service = await startBenchService({ DATA_DIR: dataDir, REDIS_PREFIX: prefix, ANCHOR_MAX_ENTRIES: '10000', ANCHOR_MAX_DELAY_MS: '500' });
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const keys = new Keys(prefix);
  // BENCH_VERIFY_CLI=<file> measures that build of the CLI (e.g. one built from a base commit) against the same service.
  const cli = process.env.BENCH_VERIFY_CLI ? path.resolve(process.env.BENCH_VERIFY_CLI) : path.resolve(import.meta.dirname, '../verifier/dist/pfws-verify.mjs');
  // BENCH_CLI_CPU_PROFILE=<dir> writes a V8 CPU profile of each CLI run, one per thread (main and every worker).
  const profile = process.env.BENCH_CLI_CPU_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CLI_CPU_PROFILE}`] : [];
  const verify = async (args: string[], stateDir: string) => {
    const started = Date.now();
    const r = await run(process.execPath, [...profile, cli, ...args, '--api', service.api, '--rpc', service.rpcUrl, '--state', stateDir, '--quiet'], {
      maxBuffer: 64 * 1024 * 1024,
    });
    return { ms: Date.now() - started, stdout: r.stdout };
  };
  const onePoll = async (stateDir: string, expectNew: number) => {
    const { stdout } = await verify(['monitor', '--once'], stateDir);
    const poll = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.type === 'poll')!;
    if (poll.verdict !== 'verified' || poll.newEntries !== expectNew) throw new Error(`monitor poll: ${JSON.stringify(poll)}`);
    return poll.ms as number;
  };
  // One poll swings by a third between runs here: the median of POLLS, each from the same saved state (copies of
  // it, then the state itself, which the last poll moves on as a monitor's would).
  const pollMs = async (stateDir: string, expectNew: number) => {
    const ms: number[] = [];
    for (let i = 1; i < POLLS; i++) {
      const copy = `${stateDir}-copy`;
      rmSync(copy, { recursive: true, force: true });
      cpSync(stateDir, copy, { recursive: true });
      ms.push(await onePoll(copy, expectNew));
      rmSync(copy, { recursive: true, force: true });
    }
    ms.push(await onePoll(stateDir, expectNew));
    return ms.sort((a, b) => a - b)[Math.floor(ms.length / 2)]!;
  };
  try {
    if (!process.env.BENCH_VERIFY_CLI) await run(process.execPath, [path.resolve(import.meta.dirname, '../verifier/build.mjs')]);
    const players: SyntheticPlayer[] = [];
    for (let i = 0; i < 4; i++) {
      const p = await new Player(service.api, service.rpcUrl).onboard(10);
      players.push({ wallet: p.address, session: p.session });
    }
    setCryptoBackend(nodeBackend);
    // About 10k entries: a full audit, then a poll that finds 1,000 more.
    await appendDiceBets(redis, dataDir, prefix, players, 10_000);
    await waitAnchored(redis, keys, service.pid);
    const small = path.join(state, 'small');
    await verify(['all'], small);
    await appendDiceBets(redis, dataDir, prefix, players, 1_000);
    await waitAnchored(redis, keys, service.pid);
    figures['verify.monitorPollMs.1000new.11k'] = await pollMs(small, 1_000);

    // 100k entries: the full audit through tiles on every core, then the same poll.
    await appendDiceBets(redis, dataDir, prefix, players, 89_000);
    await waitAnchored(redis, keys, service.pid);
    const large = path.join(state, 'large');
    // The machine's speed drifts over minutes here: the signature is timed right before and right after the audit.
    const sigUsBefore = timedVerifyUs();
    const cpuBefore = childrenCpuMs();
    const serviceBefore = service.cpuMs();
    const { ms, stdout } = await verify(['all', '--json'], large);
    // The verifier's own CPU per entry, which the machine's other load does not inflate as much as wall time.
    const cpuUsPerEntry = ((childrenCpuMs() - cpuBefore) * 1000) / 100_000;
    const serviceAfter = service.cpuMs();
    const serviceUsPerEntry = ((serviceAfter.main - serviceBefore.main + serviceAfter.api - serviceBefore.api) * 1000) / 100_000;
    figures['verify.serviceCpuUsPerEntry.100k'] = Math.round(serviceUsPerEntry * 10) / 10;
    const verifyUs = (sigUsBefore + timedVerifyUs()) / 2;
    figures['verify.ed25519VerifyUs'] = Math.round(verifyUs * 10) / 10;
    figures['verify.sigCeilingEntriesPerSec'] = Math.round((os.availableParallelism() * 1e6) / (3 * verifyUs));
    figures['verify.cpuUsPerEntry.100k'] = Math.round(cpuUsPerEntry);
    // What the CLI alone could do with every core to itself (an auditor's machine, not the service's).
    figures['verify.cliCapacityEntriesPerSec'] = Math.round((os.availableParallelism() * 1e6) / cpuUsPerEntry);
    const result = JSON.parse(stdout) as { verdict: string; results: { subject: string }[] };
    if (result.verdict !== 'verified') throw new Error(`the audit of 100k entries did not verify: ${stdout.slice(0, 2000)}`);
    figures['verify.entriesPerSec.100k'] = Math.round(100_000 / (ms / 1000));
    // Within this run, so the machine's load cancels out: throughput against the signature ceiling, and CPU per
    // entry against the three Ed25519 verifications every Dice entry needs (1.0 would be signatures alone).
    figures['verify.ratioToSigCeiling'] = Math.round((figures['verify.entriesPerSec.100k'] / figures['verify.sigCeilingEntriesPerSec']!) * 100) / 100;
    figures['verify.cpuOverSigs'] = Math.round((cpuUsPerEntry / (3 * figures['verify.ed25519VerifyUs']!)) * 100) / 100;
    figures['verify.allSec.100k'] = Math.round(ms / 100) / 10;
    figures['verify.cores'] = os.availableParallelism();
    await appendDiceBets(redis, dataDir, prefix, players, 1_000);
    await waitAnchored(redis, keys, service.pid);
    figures['verify.monitorPollMs.1000new.101k'] = await pollMs(large, 1_000);
    figures['verify.monitorPollMs.idle.101k'] = await pollMs(large, 0);
  } finally {
    setCryptoBackend(previous);
    await service.stop();
    // The service runs on this bench's own data dir and prefix: clean both.
    await removeKeys(redis, prefix);
    await redis.quit();
    rmSync(state, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
  return figures;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const [name, value] of Object.entries(await benchVerify())) console.log(`${name.padEnd(36)} ${value}`);
}
