// `app test <dir|module.wasm>`: the conformance check of an app through the real host. A directory is
// built first (app build), unless its last build is up to date (build-stamp.ts); its samples come from <dir>/test/conformance.ts or <dir>/conformance.json,
// or from --samples <file>. Prints one line per check and exits 0 only when every check passes.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import {
  type ConformanceReport,
  type ConformanceSetup,
  checkConformance,
  findConformanceSetup,
  loadConformanceSetup,
} from '../../packages/app-testing/src/index.ts';
import { OPTIMIZE_HELP, optimizeLevelOf } from './build.ts';
import { DEFAULT_OPTIMIZE_LEVEL, upToDateBuild } from './build-stamp.ts';
import { APP_COMMANDS } from './commands.ts';
import { AppUsageError } from './errors.ts';

interface TestOptions {
  samples?: string;
  json?: boolean;
  /** `--optimize`: the level a directory is built at when no up-to-date build is there. */
  optimize: number;
}

/** The report as lines: ✓/✗ and the check's name (and what it found), then the totals. */
export function formatReport(report: ConformanceReport): string {
  const lines = report.checks.map((check) => {
    const mark = check.passed ? '✓' : '✗';
    if (!check.message) return `${mark} ${check.name}`;
    return check.passed
      ? `${mark} ${check.name} (${check.message})`
      : `${mark} ${check.name}: ${check.message}`;
  });
  const passed = report.checks.filter((c) => c.passed).length;
  lines.push(`${passed} passed, ${report.checks.length - passed} failed`);
  return `${lines.join('\n')}\n`;
}

async function moduleOf(
  target: string,
  log: (line: string) => void,
  optimizeLevel: number,
): Promise<{ file: string; dir: string | null }> {
  let stat: Awaited<ReturnType<typeof fs.stat>>;
  try {
    stat = await fs.stat(target);
  } catch {
    throw new AppUsageError(`${target} does not exist (give an app directory or a .wasm module)`);
  }
  if (!stat.isDirectory()) return { file: target, dir: null };
  const shown = (file: string) => path.relative(process.cwd(), file) || file;
  const reused = await upToDateBuild(target, optimizeLevel);
  if (reused) {
    log(
      `reusing ${shown(reused.path)} (sha256 ${reused.sha256}): built from these sources; app build rebuilds it`,
    );
    return { file: reused.path, dir: target };
  }
  log('loading the AssemblyScript compiler');
  // Loaded only for a directory to build: the compiler takes seconds to load.
  const { buildApp } = await import('./compile.ts');
  const built = await buildApp(target, undefined, { progress: log, optimizeLevel });
  log(`built ${shown(built.path)} (sha256 ${built.sha256})`);
  return { file: built.path, dir: target };
}

export async function runTest(target: string, options: TestOptions): Promise<boolean> {
  const log = (line: string) => {
    if (!options.json) process.stdout.write(`${line}\n`);
  };
  const { file, dir } = await moduleOf(target, log, options.optimize);
  const setupFile = options.samples ?? (dir ? findConformanceSetup(dir) : null);
  const setup: ConformanceSetup = setupFile ? await loadConformanceSetup(setupFile) : {};
  if (setupFile) log(`samples from ${setupFile}`);
  else log('no samples given: running the checks that need none');
  let report: ConformanceReport;
  try {
    report = await checkConformance(new Uint8Array(await fs.readFile(file)), setup);
  } finally {
    await setup.close?.();
  }
  process.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
  return report.passed;
}

export function registerTest(program: Command): void {
  program
    .command('test')
    .description(APP_COMMANDS.test)
    .argument('<target>', 'an app directory or a built module (.wasm)')
    .option('--samples <file>', 'conformance setup: .json data, or a .ts/.js module exporting it')
    .option('--json', 'print the report as JSON')
    .option(
      '--optimize <level>',
      `${OPTIMIZE_HELP}; a directory only, when it has no up-to-date build`,
      optimizeLevelOf,
      DEFAULT_OPTIMIZE_LEVEL,
    )
    .action(async (target: string, options: TestOptions) => {
      const passed = await runTest(target, options);
      // Exit once the output is written rather than when the event loop drains: nothing the check
      // started (a sandbox thread, a double's socket) may keep the command alive after its answer.
      await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
      process.exit(passed ? 0 : 1);
    });
}
