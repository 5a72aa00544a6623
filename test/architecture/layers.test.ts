// The layer rule, checked on every import of the tree: arrows point inward (protocol ← store ← domain ←
// roles ← the composition root), domains import only the domains below them, roles never import each other,
// and nothing imports an entry point.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const IGNORED = new Set(['node_modules', 'data', 'test', '.git', 'dist', 'test-artifacts']);

/** Project folders each folder may import (itself always). */
const CORE = ['protocol'];
const INFRA = [...CORE, 'schemas', 'config'];
const ADAPTERS = [...INFRA, 'store', 'chain', 'operator'];
/**
 * The domain order, lowest first. A domain may import the domains of the tiers below its own, never one beside or
 * above it: money in and out, the house, sign-in and the trust root stand on their own; the games use funding (a
 * wallet's reveal memo, read from the chain tail, settles a bet at its deadline); analytics reads the games'
 * receipts and payments credits through funding; agents play the games.
 */
const DOMAIN_TIERS: readonly (readonly string[])[] = [['funding', 'house', 'auth', 'transparency'], ['games'], ['analytics', 'payments'], ['agents']];
const DOMAIN = DOMAIN_TIERS.flat();
const below = (tier: number) => DOMAIN_TIERS.slice(0, tier).flat();
const ALLOWED: Record<string, readonly string[]> = {
  protocol: [],
  schemas: CORE,
  config: CORE,
  localnet: [],
  store: INFRA,
  operator: INFRA,
  chain: [...INFRA, 'operator'],
  ...Object.fromEntries(DOMAIN_TIERS.flatMap((tier, i) => tier.map((d) => [d, [...ADAPTERS, ...below(i)]]))),
  api: [...ADAPTERS, ...DOMAIN],
  indexer: [...ADAPTERS, ...DOMAIN.filter((d) => d !== 'games')],
  'anchor-worker': [...ADAPTERS, ...DOMAIN],
  // The operator's ledger tool (`npm run ledger`), an entry point like a role; like main.ts it opens the embedded
  // localnet when no SOLANA_RPC_URL is set (the service is stopped while it runs).
  ledger: [...ADAPTERS, ...DOMAIN, 'localnet'],
  verifier: CORE,
  web: CORE,
  bin: ['verifier'],
};
/** Entry points: only the composition root and the tests may import them. */
const ENTRY_POINTS = new Set(['main.ts', 'wiring.ts', 'api/server.ts']);
const MAY_IMPORT_ENTRY_POINTS = new Set(['main.ts', 'bench', 'chaos']);
const HARNESSES = new Set(['bench', 'chaos']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (IGNORED.has(name) || name.startsWith('.')) return [];
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.(ts|mts|mjs|js)$/.test(name) && !name.endsWith('.d.ts') ? [full] : [];
  });
}

const IMPORT_RE = /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g;

interface Arrow {
  from: string;
  to: string;
}

function arrows(): Arrow[] {
  const out: Arrow[] = [];
  for (const file of sourceFiles(ROOT)) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(IMPORT_RE)) {
      const spec = m[1] ?? m[2] ?? m[3];
      if (!spec?.startsWith('.')) continue;
      const target = path.relative(ROOT, path.resolve(path.dirname(file), spec));
      if (target.startsWith('..')) continue;
      out.push({ from: path.relative(ROOT, file), to: target });
    }
  }
  return out;
}

const folderOf = (file: string) => (file.includes(path.sep) ? file.split(path.sep)[0]! : file);

describe('layers', () => {
  const all = arrows();

  it('reads the whole tree', () => {
    expect(all.length).toBeGreaterThan(200);
    expect(all.some((a) => a.from.startsWith('games/') && a.to.startsWith('store/'))).toBe(true);
  });

  it('every import points inward', () => {
    const bad = all
      .filter(({ from, to }) => {
        const src = folderOf(from);
        const dst = folderOf(to);
        const allowed = ALLOWED[src];
        if (!allowed || src === dst) return false;
        return !allowed.includes(dst);
      })
      .map(({ from, to }) => `${from} → ${to}`);
    expect(bad).toEqual([]);
  });

  it('protocol/ imports nothing else in the project; store/ only protocol/, schemas/ and config/', () => {
    expect(all.filter((a) => a.from.startsWith('protocol/') && !a.to.startsWith('protocol/'))).toEqual([]);
    expect(all.filter((a) => a.from.startsWith('store/') && !/^(store|protocol|schemas|config)\//.test(a.to))).toEqual([]);
  });

  it('indexer/ does not import games/, and no role imports another', () => {
    const roles = ['api', 'indexer', 'anchor-worker', 'ledger'];
    const bad = all.filter((a) => {
      const src = folderOf(a.from);
      const dst = folderOf(a.to);
      return (src === 'indexer' && dst === 'games') || (roles.includes(src) && roles.includes(dst) && src !== dst);
    });
    expect(bad).toEqual([]);
  });

  it('no module imports an entry point', () => {
    const bad = all.filter((a) => ENTRY_POINTS.has(a.to) && !MAY_IMPORT_ENTRY_POINTS.has(folderOf(a.from)) && a.from !== a.to);
    expect(bad).toEqual([]);
  });

  it('every top-level folder of source code has a rule', () => {
    const folders = new Set(all.map((a) => folderOf(a.from)).filter((f) => !f.endsWith('.ts')));
    // bench/ and chaos/ drive the service from outside, like the tests; nothing imports them.
    expect([...folders].filter((f) => !ALLOWED[f] && !HARNESSES.has(f))).toEqual([]);
    expect(all.filter((a) => HARNESSES.has(folderOf(a.to)) && !HARNESSES.has(folderOf(a.from)))).toEqual([]);
  });
});
