import { defineConfig } from 'vitest/config';
import LongestFirst from './test/support/longest-first.ts';

/**
 * Files that measure the runner's handling of CPU and time (threads lowered when a call has used 50 ms
 * of CPU, calls that must answer within a deadline): under other files' load a lowered thread gets too
 * little CPU for their deadlines, so they run after the rest, one at a time.
 */
const ALONE = [
  'test/runner/sandbox.test.ts',
  'test/runner/fair-sharing.test.ts',
  'test/runner/isolation.test.ts',
];

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/profile-setup.ts'],
    // Longest files first, by test/file-times.json (written by npm run test:profile).
    sequence: { sequencer: LongestFirst },
    // The ten slowest files after the summary (test/support/slowest-files-reporter.ts).
    reporters: ['default', './test/support/slowest-files-reporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 90_000,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: {
          name: 'parallel',
          include: ['test/**/*.test.ts', 'apps/*/test/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
          exclude: ALONE,
          // Two at once keep 2 cores busy (vitest's default there is one file at a time); three were slower
          // on this machine (722 s against 676 s, and 17 % more CPU: docs/testing.md).
          maxWorkers: 2,
          // A worker's files share its loaded modules instead of importing them again each (docs/testing.md).
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'alone',
          include: ALONE,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
