// `pfws-verify all` against a test service, as an outside auditor runs it.
import path from 'node:path';
import { expect } from 'vitest';
import { runCli } from '../../verifier/cli.ts';
import type { TestService } from './service.ts';

/** Runs `pfws-verify all --json` on the service, expects every report to pass, and returns the names of the checks that passed. */
export async function expectVerifiedAll(svc: Pick<TestService, 'api' | 'dataDir'>): Promise<string[]> {
  let out = '';
  const code = await runCli(['all', '--api', svc.api, '--json'], {
    out: (t) => (out += `${t}\n`),
    err: () => {},
    env: { PFWS_VERIFY_HOME: path.join(svc.dataDir, 'pfws-verify') },
    tty: false,
  });
  const result = JSON.parse(out) as { results: { ok: boolean; checks: { name: string; status: string }[] }[] };
  expect(result.results.filter((r) => !r.ok)).toEqual([]);
  expect(code).toBe(0);
  return result.results.flatMap((r) => r.checks.filter((c) => c.status === 'pass').map((c) => c.name));
}
