import { defineConfig } from 'vitest/config';

// The fault suites start many processes each and measure recovery times: they run alone, after the rest. The
// rest mostly waits on its services (chain confirmations, timeouts), so two files at a time fit two cores.
const SUITES = ['test/chaos/chaos.test.ts', 'test/chaos/failover.test.ts', 'test/chaos/attacks.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    globalSetup: ['test/web/global-setup.ts'],
    projects: [
      {
        extends: true,
        test: { name: 'unit-e2e', include: ['test/**/*.test.ts'], exclude: SUITES, maxWorkers: 2, sequence: { groupOrder: 0 } },
      },
      { extends: true, test: { name: 'fault-suites', include: SUITES, maxWorkers: 1, sequence: { groupOrder: 1 } } },
    ],
  },
});
