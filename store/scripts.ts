// Loads the ledger's Lua scripts (each prefixed with the shared helpers) and runs them by SHA.
import { createHash } from 'node:crypto';
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

// ioredis's `defineCommand` remembers a loaded script per socket, but an auto-pipelined batch writes
// through a fresh stream object each time, so every call would resend the whole source as EVAL. We send
// EVALSHA and load the source only when Redis answers NOSCRIPT (after a restart or SCRIPT FLUSH); a
// NOSCRIPT reply means nothing ran, so the retry cannot apply a change twice.
export function defineScripts(redis: Redis): ScriptRunner {
  const src = loadSources();
  const runner = {} as ScriptRunner;
  for (const [name, numberOfKeys] of Object.entries(SCRIPTS) as [ScriptName, number][]) {
    const lua = src[name] as string;
    const sha = createHash('sha1').update(lua).digest('hex');
    const call = (keys: string[], args: (string | number)[]) =>
      redis.evalsha(sha, numberOfKeys, ...keys, ...args) as Promise<ScriptReply>;
    runner[name] = async (keys, args) => {
      if (keys.length !== numberOfKeys) throw new Error(`${name} takes ${numberOfKeys} keys`);
      try {
        return await call(keys, args);
      } catch (err) {
        if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
        await redis.script('LOAD', lua);
        return call(keys, args);
      }
    };
  }
  return runner;
}
