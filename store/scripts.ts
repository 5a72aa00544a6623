// The ledger's Lua scripts: one `.lua` file each under store/scripts (prefixed with the shared helpers of
// _lib.lua), registered on a connection with ioredis `defineCommand`.
import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';
import { packFields, type ScriptFields } from './script-fields.ts';

/** Every script and how many keys it takes. */
export const SCRIPTS = {
  applyChainItem: 9,
  commitBet: 15,
  saveCapped: 2,
  openSession: 2,
  revokeToken: 1,
  openTicket: 10,
  settleTurn: 14,
  prepareView: 4,
  renewLease: 1,
  releaseLease: 1,
  setRngChain: 1,
  setNextRngChain: 1,
  anchorSnapshot: 5,
  claimCommit: 3,
  updatePendingCommit: 1,
  finalizeCommit: 3,
  claimManifestDraft: 1,
  publishManifest: 3,
  requestWithdrawal: 9,
  storeKeeperTx: 1,
  finishWithdrawal: 7,
  returnWithdrawal: 7,
  keeperStuck: 3,
  lpFixMint: 7,
  lpFixRedeem: 7,
  finishLpJob: 5,
  forgetIdleTicket: 2,
  agentWindow: 2,
  restoreCommit: 12,
  restoreTicketOpen: 9,
  restoreRecord: 7,
  restoreCommits: 3,
} as const;

export type ScriptName = keyof typeof SCRIPTS;
export type ScriptReply = (string | null)[] | number;
type Named = keyof ScriptFields;
/** Typed callers: a script with named fields takes its interface (script-fields.ts), the others a few positional ARGV. */
export type Scripts = { [N in Exclude<ScriptName, Named>]: (keys: readonly string[], args: readonly (string | number)[]) => Promise<ScriptReply> } & {
  [N in Named]: (keys: readonly string[], fields: ScriptFields[N]) => Promise<ScriptReply>;
};
const NAMED: ReadonlySet<string> = new Set<Named>([
  'applyChainItem',
  'commitBet',
  'openTicket',
  'settleTurn',
  'publishManifest',
  'lpFixMint',
  'lpFixRedeem',
  'restoreCommit',
  'restoreTicketOpen',
  'restoreRecord',
]);

/**
 * Script names for ioredis's `autoPipeliningIgnoredCommands`: `defineCommand` sends EVAL once per socket and
 * EVALSHA after that, but an auto-pipelined batch writes through a fresh stream object each time, so it would
 * resend every script's whole source. Scripts therefore go straight to the socket.
 */
export const SCRIPT_NAMES = Object.keys(SCRIPTS) as ScriptName[];

const fileOf = (name: string) => new URL(`./scripts/${name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}.lua`, import.meta.url);

let sources: Record<ScriptName, string> | null = null;
function loadSources(): Record<ScriptName, string> {
  if (!sources) {
    const lib = readFileSync(new URL('./scripts/_lib.lua', import.meta.url), 'utf8');
    sources = Object.fromEntries(SCRIPT_NAMES.map((name) => [name, `${lib}\n${readFileSync(fileOf(name), 'utf8')}`])) as Record<ScriptName, string>;
  }
  return sources;
}

type Command = (...args: (string | number)[]) => Promise<ScriptReply>;

/** Registers every script on `redis` (once per connection) and returns typed callers. */
export function defineScripts(redis: Redis): Scripts {
  const src = loadSources();
  const commands = redis as unknown as Record<ScriptName, Command | undefined>;
  const scripts: Record<string, (keys: readonly string[], args: object) => Promise<ScriptReply>> = {};
  for (const name of SCRIPT_NAMES) {
    const numberOfKeys = SCRIPTS[name];
    if (!commands[name]) redis.defineCommand(name, { numberOfKeys, lua: src[name] });
    const named = NAMED.has(name);
    scripts[name] = (keys, args) => {
      if (keys.length !== numberOfKeys) throw new Error(`${name} takes ${numberOfKeys} keys`);
      return (commands[name] as Command).call(redis, ...keys, ...(named ? packFields(args) : (args as readonly (string | number)[])));
    };
  }
  return scripts as unknown as Scripts;
}
