import { defineConfig } from 'vitest/config';

// The fault suites start many processes each and measure recovery times: they run after the rest, two at a time
// (one alone keeps the two cores about 60 % busy, and their bounds are several times the recoveries measured two at
// a time: failover probes at most 1.1 s against 4.5 s). The rest keeps two cores busy with two files at a time.
const SUITES = ['test/chaos/chaos.test.ts', 'test/chaos/failover.test.ts', 'test/chaos/attacks.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    globalSetup: ['test/helpers/global-setup.ts'],
    projects: [
      {
        extends: true,
        test: { name: 'unit-e2e', include: ['test/**/*.test.ts'], exclude: SUITES, maxWorkers: 2, sequence: { groupOrder: 0 } },
      },
      { extends: true, test: { name: 'fault-suites', include: SUITES, maxWorkers: 2, sequence: { groupOrder: 1 } } },
    ],
  },
});
