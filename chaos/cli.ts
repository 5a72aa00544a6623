// `npm run chaos`: runs the fault suite (long profile by default), prints what was tried and what held, exits 1 on any loss or violation.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { FAILOVER_PROFILES, PROFILES } from './profiles.ts';
import { runFailover } from './failover.ts';
import { SeededRandom } from './random.ts';
import { formatReport, passed } from './report.ts';
import { runChaos } from './suite.ts';

const USAGE = `Usage: npm run chaos -- [options]

  --suite main|failover|all   main: the suite on one Redis; failover: Redis with a replica and three Sentinels,
                         the primary killed and the replica hung (default all; env CHAOS_SUITE)
  --profile short|long   short is the CI profile (default long; env CHAOS_PROFILE)
  --players N            concurrent load players (env CHAOS_PLAYERS)
  --rounds M             kill -9 rounds (env CHAOS_ROUNDS)
  --appendfsync always|everysec   the suite's Redis fsync policy (default always)
  --seed S               replay a run: the same fault schedule, choices and fuzz inputs (env CHAOS_SEED)
  --work-dir DIR         where Redis, the service's data and log go (kept)
  --keep                 keep the temporary work dir even when everything held`;

const positiveInt = (name: string, value: string | undefined): number | undefined => {
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got ${JSON.stringify(value)}`);
  return n;
};

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      suite: { type: 'string' },
      profile: { type: 'string' },
      players: { type: 'string' },
      rounds: { type: 'string' },
      seed: { type: 'string' },
      appendfsync: { type: 'string' },
      'work-dir': { type: 'string' },
      keep: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const name = values.profile ?? process.env.CHAOS_PROFILE ?? 'long';
  const base = PROFILES[name];
  if (!base) throw new Error(`--profile must be one of ${Object.keys(PROFILES).join(', ')}, got ${JSON.stringify(name)}`);
  const profile = {
    ...base,
    players: positiveInt('--players', values.players ?? process.env.CHAOS_PLAYERS) ?? base.players,
    faultRounds: positiveInt('--rounds', values.rounds ?? process.env.CHAOS_ROUNDS) ?? base.faultRounds,
  };
  const fsync = values.appendfsync ?? 'always';
  if (fsync !== 'always' && fsync !== 'everysec') throw new Error(`--appendfsync must be always or everysec, got ${JSON.stringify(fsync)}`);
  Object.assign(profile, { appendfsync: fsync });
  const seed = values.seed ?? process.env.CHAOS_SEED ?? SeededRandom.newSeed();
  const suite = values.suite ?? process.env.CHAOS_SUITE ?? 'all';
  if (!['main', 'failover', 'all'].includes(suite)) throw new Error(`--suite must be main, failover or all, got ${JSON.stringify(suite)}`);
  const common = {
    seed,
    keep: values.keep,
    log: (line: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${line}`),
  };
  const workDir = (name: string) => (values['work-dir'] ? { workDir: suite === 'all' ? path.join(values['work-dir'], name) : values['work-dir'] } : {});
  let ok = true;
  if (suite !== 'failover') {
    const report = await runChaos({ ...common, profile, ...workDir('main') });
    console.log(formatReport(report));
    ok &&= passed(report);
  }
  if (suite !== 'main') {
    const report = await runFailover({ ...common, profile: FAILOVER_PROFILES[name] ?? FAILOVER_PROFILES.long!, ...workDir('failover') });
    console.log(formatReport(report));
    ok &&= passed(report);
  }
  return ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`chaos: ${(err as Error).stack ?? err}`);
    process.exit(2);
  },
);
