// Prints the ten slowest test files after every run (npm test, CI), so that a slow file is seen the day
// it becomes slow; with TEST_PROFILE_OUT set, also writes every file's times and profile there as JSON
// for scripts/test-profile.ts.
import fs from 'node:fs';
import path from 'node:path';
import type { Reporter, TestModule, Vitest } from 'vitest/node';
import type { FileProfile } from './profile.ts';

export interface FileTimes {
  file: string;
  /** Import and set-up of the file plus its tests and hooks, in milliseconds. */
  wallMs: number;
  collectMs: number;
  tests: number;
  worker: number;
  profile: FileProfile | null;
}

export function fileTimes(module: TestModule, root: string): FileTimes {
  const diagnostic = module.diagnostic();
  const collectMs = diagnostic.collectDuration + diagnostic.setupDuration + diagnostic.prepareDuration;
  return {
    file: path.relative(root, module.moduleId),
    wallMs: Math.round(collectMs + diagnostic.environmentSetupDuration + diagnostic.duration),
    collectMs: Math.round(collectMs),
    tests: [...module.children.allTests()].length,
    worker: diagnostic.concurrencyId,
    profile: ((module.meta() as { profile?: FileProfile }).profile ?? null) as FileProfile | null,
  };
}

export const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export default class SlowestFilesReporter implements Reporter {
  private vitest!: Vitest;

  onInit(vitest: Vitest) {
    this.vitest = vitest;
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>) {
    const root = this.vitest.config.root;
    const files = modules.map((module) => fileTimes(module, root)).sort((a, b) => b.wallMs - a.wallMs);
    const out = process.env.TEST_PROFILE_OUT;
    if (out) fs.writeFileSync(out, `${JSON.stringify(files, null, 1)}\n`);
    if (files.length < 2) return;
    const width = Math.max(...files.slice(0, 10).map((f) => f.file.length));
    const lines = files
      .slice(0, 10)
      .map(
        (f) =>
          `  ${seconds(f.wallMs).padStart(8)}  ${f.file.padEnd(width)}  ${f.tests} test${f.tests === 1 ? '' : 's'}`,
      );
    this.vitest.logger.log(`\n Slowest files (import, set-up and tests):\n${lines.join('\n')}\n`);
  }
}
