// protocol/ and games/ run for every bet and every audited entry: no object literal there starts with a spread and
// goes on (`{ ...a, b }`, `{ ...a, ...b }`). In Node 20's V8 each object such a literal makes gets a hidden class of
// its own, slow to build and slow wherever it is read (test/protocol/hidden-classes.test.ts); Object.assign makes the
// same keys in the same order on a shared one.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { transformSync } from 'esbuild';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const HOT = ['protocol', 'games'];

const tsFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });

/** Each object literal of `code` (JavaScript, comments gone) that starts with a spread and has more members. */
function spreadFirstLiterals(code: string): string[] {
  const found: string[] = [];
  for (let at = code.indexOf('{...'); at >= 0; at = code.indexOf('{...', at + 1)) {
    let depth = 0;
    let members = 1;
    let end = at;
    for (; end < code.length; end++) {
      const c = code[end] as string;
      if (c === '"' || c === "'" || c === '`') {
        for (end++; end < code.length && code[end] !== c; end++) if (code[end] === '\\') end++;
      } else if (c === '{' || c === '(' || c === '[') depth++;
      else if (c === '}' || c === ')' || c === ']') {
        if (--depth === 0) break;
      } else if (c === ',' && depth === 1) members++;
    }
    if (members > 1) found.push(code.slice(at, Math.min(end + 1, at + 100)));
  }
  return found;
}

describe('the hot paths', () => {
  it('the scan finds what it looks for, and only that', () => {
    const code = (ts: string) => transformSync(ts, { loader: 'ts', minifyWhitespace: true }).code;
    expect(spreadFirstLiterals(code('const x = { ...a, b: 1 }; const y = { ...a, ...c };'))).toHaveLength(2);
    expect(spreadFirstLiterals(code("const x = { b: ',', ...a }; const y = { ...a }; const { ...r } = a; f(...a, b); [...a, b];"))).toEqual([]);
  });

  it.each(HOT)('%s/ has no object literal that starts with a spread and goes on', (folder) => {
    const found = tsFiles(path.join(ROOT, folder)).flatMap((file) => {
      const { code } = transformSync(readFileSync(file, 'utf8'), { loader: 'ts', minifyWhitespace: true });
      return spreadFirstLiterals(code).map((literal) => `${path.relative(ROOT, file)}: ${literal}`);
    });
    expect(found).toEqual([]);
  });
});
