// Loads the ledger's Lua scripts (each prefixed with the shared helpers) as ioredis commands.
import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';

const SCRIPTS = {
  applyChainItem: 7,
  commitBet: 12,
  settleBet: 11,
  openTicket: 7,
  settleTurn: 13,
  prepareView: 4,
} as const;

export type ScriptName = keyof typeof SCRIPTS;
type ScriptReply = (string | null)[] | number;
export type ScriptRunner = Record<ScriptName, (keys: string[], args: (string | number)[]) => Promise<ScriptReply>>;

const fileOf = (name: string) => new URL(`./scripts/${name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}.lua`, import.meta.url);

let sources: Record<string, string> | null = null;
function loadSources(): Record<string, string> {
  if (!sources) {
    const lib = readFileSync(new URL('./scripts/_lib.lua', import.meta.url), 'utf8');
    sources = Object.fromEntries(Object.keys(SCRIPTS).map((name) => [name, `${lib}\n${readFileSync(fileOf(name), 'utf8')}`]));
  }
  return sources;
}

export function defineScripts(redis: Redis): ScriptRunner {
  const src = loadSources();
  const runner = {} as ScriptRunner;
  for (const [name, numberOfKeys] of Object.entries(SCRIPTS) as [ScriptName, number][]) {
    const command = `pfws_${name}`;
    if (!(command in redis)) redis.defineCommand(command, { numberOfKeys, lua: src[name] as string });
    runner[name] = (keys, args) => {
      if (keys.length !== numberOfKeys) throw new Error(`${name} takes ${numberOfKeys} keys`);
      return (redis as unknown as Record<string, (...a: unknown[]) => Promise<ScriptReply>>)[command]!(...keys, ...args);
    };
  }
  return runner;
}
