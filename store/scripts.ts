// The ledger's Lua scripts: one `.lua` file each under store/scripts (prefixed with the shared helpers of
// _lib.lua), sent as EVALSHA.
import { createHash } from 'node:crypto';
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
  prepareBet: 6,
  renewLease: 1,
  releaseLease: 1,
  setRngChain: 1,
  setNextRngChain: 1,
  anchorSnapshot: 7,
  claimCommit: 4,
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
  // -1: any number of keys (prune_settled.lua names the records it drops, fill_anchors.lua the receipts it fills).
  pruneSettled: -1,
  fillAnchors: -1,
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
  'prepareBet',
  'openTicket',
  'settleTurn',
  'publishManifest',
  'lpFixMint',
  'lpFixRedeem',
  'restoreCommit',
  'restoreTicketOpen',
  'restoreRecord',
]);

const SCRIPT_NAMES = Object.keys(SCRIPTS) as ScriptName[];

const fileOf = (name: string) => new URL(`./scripts/${name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}.lua`, import.meta.url);

interface Source {
  lua: string;
  sha: string;
}

let sources: Record<ScriptName, Source> | null = null;
function loadSources(): Record<ScriptName, Source> {
  if (!sources) {
    const lib = readFileSync(new URL('./scripts/_lib.lua', import.meta.url), 'utf8');
    sources = Object.fromEntries(
      SCRIPT_NAMES.map((name) => {
        const lua = `${lib}\n${readFileSync(fileOf(name), 'utf8')}`;
        return [name, { lua, sha: createHash('sha1').update(lua).digest('hex') }];
      }),
    ) as Record<ScriptName, Source>;
  }
  return sources;
}

/** SCRIPT LOADs under way, per connection and script: concurrent NOSCRIPT replies share one load. */
const loading = new WeakMap<Redis, Map<string, Promise<unknown>>>();

function loadScript(redis: Redis, source: Source): Promise<unknown> {
  let byConnection = loading.get(redis);
  if (!byConnection) {
    byConnection = new Map();
    loading.set(redis, byConnection);
  }
  let load = byConnection.get(source.sha);
  if (!load) {
    load = redis.script('LOAD', source.lua).finally(() => byConnection.delete(source.sha));
    byConnection.set(source.sha, load);
  }
  return load;
}

const isNoScript = (err: unknown) => err instanceof Error && err.message.startsWith('NOSCRIPT');

/**
 * Typed callers of every script on `redis`. Each call is an EVALSHA. A Redis that does not know the script (first use,
 * a restart, a failover) answers NOSCRIPT without running anything, so the source is loaded once and the call sent
 * again.
 */
export function defineScripts(redis: Redis): Scripts {
  const src = loadSources();
  const scripts: Record<string, (keys: readonly string[], args: object) => Promise<ScriptReply>> = {};
  for (const name of SCRIPT_NAMES) {
    const numberOfKeys = SCRIPTS[name];
    const source = src[name];
    const named = NAMED.has(name);
    scripts[name] = async (keys, args) => {
      if (numberOfKeys >= 0 ? keys.length !== numberOfKeys : keys.length === 0)
        throw new Error(`${name} takes ${numberOfKeys >= 0 ? numberOfKeys : 'at least one'} keys`);
      // Numbers go as their decimal text, as they would spread: ioredis converts each argument the same way.
      const argv = [...keys, ...(named ? packFields(args) : (args as readonly (string | number)[]))] as string[];
      try {
        // As one array (ioredis flattens it): spread into the call, a commit's liability snapshot (two arguments a
        // wallet) overflowed the call stack past about 60,000 wallets.
        return (await redis.evalsha(source.sha, keys.length, argv)) as ScriptReply;
      } catch (err) {
        if (!isNoScript(err)) throw err;
        await loadScript(redis, source);
        return (await redis.evalsha(source.sha, keys.length, argv)) as ScriptReply;
      }
    };
  }
  return scripts as unknown as Scripts;
}
