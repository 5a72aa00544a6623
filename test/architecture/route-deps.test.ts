// Narrow route dependencies: each API plugin receives the parts it uses as its options, so no file under api/ reads a
// part of ApiDeps off the Fastify instance, and the app is decorated only with the shared bearer-auth hook.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const API = path.resolve(import.meta.dirname, '../../api');
/** The decorations every route may rely on (api/plugins/auth.ts): the bearer check and the wallet it sets. */
const SHARED_DECORATIONS = new Set(['requireWallet', 'wallet']);
/** What a Fastify instance is called in a plugin, including a request's route to it. */
const INSTANCE = String.raw`(?:\bapp|\bfastify|\bapi|\binstance|\bthis|request\.server)`;

const apiFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return apiFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });

/** The field names of `interface ApiDeps` in api/deps.ts. */
function apiDepsKeys(): string[] {
  const text = readFileSync(path.join(API, 'deps.ts'), 'utf8');
  const body = /export interface ApiDeps \{([\s\S]*?)\n\}/.exec(text)?.[1];
  if (!body) throw new Error('api/deps.ts: interface ApiDeps not found');
  return [...body.matchAll(/^ {2}(\w+)\??:/gm)].map((m) => m[1]!);
}

/** Each `<instance>.<part>` read and each `const { <part> } = <instance>` of a file, for the given part names. */
function partsReadOffTheApp(text: string, keys: readonly string[]): string[] {
  const named = new Set(keys);
  const found = [...text.matchAll(new RegExp(`${INSTANCE}\\.(\\w+)\\b`, 'g'))].map((m) => m[1]!).filter((name) => named.has(name));
  for (const m of text.matchAll(new RegExp(`\\{([^{}]*)\\}\\s*=\\s*${INSTANCE}\\s*;`, 'g'))) {
    for (const field of m[1]!.split(',')) {
      const name = field.split(':')[0]!.trim();
      if (named.has(name)) found.push(name);
    }
  }
  return found;
}

/** Each decoration a file adds, by name; a name that is not a string literal is reported as `<computed>`. */
function decorationsOf(text: string): string[] {
  return [...text.matchAll(/\.decorate(?:Request|Reply)?\(\s*(?:(['"])(\w+)\1|[^'"\s])/g)].map((m) => m[2] ?? '<computed>');
}

describe('narrow route dependencies', () => {
  const keys = apiDepsKeys();
  const files = apiFiles(API).map((file) => ({ file: path.relative(API, file), text: readFileSync(file, 'utf8') }));

  it('the checks see what they look for', () => {
    expect(keys).toEqual(expect.arrayContaining(['lifecycle', 'dice', 'bets', 'replication', 'ops', 'config']));
    expect(partsReadOffTheApp('const { lifecycle, anchors: store } = app;\nreadReceipt(app.bets, id); request.server.ops', keys)).toEqual([
      'bets',
      'ops',
      'lifecycle',
      'anchors',
    ]);
    expect(partsReadOffTheApp('request.routeOptions.config; reply.server; server.close(); app.get(url)', keys)).toEqual([]);
    expect(decorationsOf("app.decorate('requireWallet', f); app.decorateRequest(\"wallet\", ''); app.decorate(name, part)")).toEqual([
      'requireWallet',
      'wallet',
      '<computed>',
    ]);
  });

  it('no file under api/ reads a part of ApiDeps off the Fastify instance', () => {
    const reads = files.flatMap(({ file, text }) => partsReadOffTheApp(text, keys).map((part) => `${file}: ${part}`));
    expect(reads).toEqual([]);
  });

  it('the app is decorated only with the shared bearer-auth hook', () => {
    const extra = files.flatMap(({ file, text }) =>
      decorationsOf(text)
        .filter((name) => !SHARED_DECORATIONS.has(name))
        .map((name) => `${file}: ${name}`),
    );
    expect(extra).toEqual([]);
    expect(files.filter(({ text }) => /interface FastifyInstance extends/.test(text)).map(({ file }) => file)).toEqual([]);
  });
});
