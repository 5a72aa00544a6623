// The package tells the truth about the Node it runs on: every installed package accepts every Node that
// `engines.node` admits (so `npm ci` prints no EBADENGINE), this Node is one of them, and the lockfile holds
// the platform packages that optional dependencies name (a lockfile without them breaks a clean install).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[]; optionalDependencies?: Record<string, string> }>;
};

/** Where npm would find `name` for the package at `from`: nested first, then each parent up to the root. */
function resolve(from: string, name: string): string | null {
  let dir = from;
  for (;;) {
    const candidate = `${dir ? `${dir}/` : ''}node_modules/${name}`;
    if (lock.packages[candidate]) return candidate;
    if (!dir) return null;
    const at = dir.lastIndexOf('/node_modules/');
    dir = at < 0 ? '' : dir.slice(0, at);
  }
}

describe('engines', () => {
  const ours = pkg.engines.node;

  it('admits the Node this runs on', () => {
    expect(semver.satisfies(process.version, ours), `${process.version} vs ${ours}`).toBe(true);
  });

  it('admits no Node that an installed package refuses', () => {
    const refused = Object.entries(lock.packages)
      .filter(([name, p]) => name && p.engines && !Array.isArray(p.engines) && p.engines.node && !semver.subset(ours, p.engines.node))
      .map(([name, p]) => `${name}@${p.version} wants node ${(p.engines as { node: string }).node}`);
    expect(refused).toEqual([]);
  });

  it('the lockfile holds every platform package an optional dependency names', () => {
    const missing: string[] = [];
    for (const [name, p] of Object.entries(lock.packages)) {
      for (const dep of Object.keys(p.optionalDependencies ?? {})) if (!resolve(name, dep)) missing.push(`${name || 'root'} → ${dep}`);
    }
    expect(missing).toEqual([]);
  });
});
