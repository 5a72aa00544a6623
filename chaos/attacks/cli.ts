// `npm run attacks`: replays issue 21's economic attacks against a service of its own, prints what each cost the
// attacker and what it gained, and exits 1 if any attack pays or blocks play.
import { parseArgs } from 'node:util';
import { PROFILES } from './profiles.ts';
import { formatReport, passed } from './report.ts';
import { runAttacks } from './suite.ts';

const USAGE = `Usage: npm run attacks -- [options]

  --profile full|ci      full replays the issue's figures (default); ci is the short profile CI runs
  --only TEXT            only the attacks whose name contains TEXT (repeatable)
  --redis URL            the Redis the service uses, under a prefix of its own (default REDIS_URL or redis://127.0.0.1:6379)
  --env NAME=VALUE       a setting of the service's own (repeatable), e.g. MAX_WALLET_EXPOSURE_BPS=10000 to see an attack pay
  --work-dir DIR         where the service's data and log go (kept)
  --keep                 keep the temporary work dir even when every attack held`;

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      profile: { type: 'string' },
      only: { type: 'string', multiple: true },
      redis: { type: 'string' },
      env: { type: 'string', multiple: true },
      'work-dir': { type: 'string' },
      keep: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const name = values.profile ?? 'full';
  const profile = PROFILES[name];
  if (!profile) throw new Error(`--profile must be one of ${Object.keys(PROFILES).join(', ')}, got ${JSON.stringify(name)}`);
  const env: Record<string, string> = {};
  for (const pair of values.env ?? []) {
    const at = pair.indexOf('=');
    if (at < 1) throw new Error(`--env takes NAME=VALUE, got ${JSON.stringify(pair)}`);
    env[pair.slice(0, at)] = pair.slice(at + 1);
  }
  const report = await runAttacks({
    profile,
    keep: values.keep,
    ...(values.only ? { only: values.only } : {}),
    ...(values.redis ? { redisUrl: values.redis } : {}),
    ...(values.env ? { env } : {}),
    ...(values['work-dir'] ? { workDir: values['work-dir'] } : {}),
    log: (line) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${line}`),
  });
  console.log(formatReport(report));
  return passed(report) ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`attacks: ${(err as Error).stack ?? err}`);
    process.exit(2);
  },
);
