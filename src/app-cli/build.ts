// `app build <dir> [--out <file>]`: compiles <dir>/assembly/index.ts, checks the module exactly as an
// upload is checked (inspectUpload: imports, the manifest export in a sandbox, the strict manifest parse,
// the exports it promises), and writes the module capped at its memoryMiB. Each step says so on stderr as
// it starts (compiling is otherwise silent for 15 to 25 s on an idle machine). A refusal prints one line naming the manifest
// path at fault, exits 1 and writes no module.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { DEFAULT_OPTIMIZE_LEVEL } from './build-stamp.ts';
import { APP_COMMANDS } from './commands.ts';
import { AppUsageError } from './errors.ts';

export const OPTIMIZE_HELP =
  'Binaryen optimize level, 0 to 3 (0 compiles in a few seconds, for quick iterations)';

/** `--optimize <level>` as commander parses it: an integer 0 to 3. */
export function optimizeLevelOf(text: string): number {
  if (!/^[0-3]$/.test(text)) throw new AppUsageError(`--optimize: expected 0, 1, 2 or 3, got "${text}"`);
  return Number(text);
}

async function checkAppDir(dir: string): Promise<void> {
  let stat: Awaited<ReturnType<typeof fs.stat>>;
  try {
    stat = await fs.stat(dir);
  } catch {
    throw new AppUsageError(`${dir} does not exist`);
  }
  if (!stat.isDirectory()) throw new AppUsageError(`${dir} is not a directory (give an app directory)`);
  try {
    await fs.access(path.join(dir, 'assembly/index.ts'));
  } catch {
    throw new AppUsageError(
      `${dir} is not an app directory: it has no assembly/index.ts (create one with app new)`,
    );
  }
}

/**
 * Runs the build; answers the exit code. Output: each step as it starts on stderr, then the module path and
 * sha256 on stdout, or one line on refusal.
 */
export async function runBuild(dir: string, out: string | undefined, optimizeLevel: number): Promise<number> {
  await checkAppDir(dir);
  const progress = (line: string) => process.stderr.write(`${line}\n`);
  progress('loading the AssemblyScript compiler');
  // Loaded here: the compiler takes a moment to load, and usage errors need none of it.
  const { AppBuildError, buildApp } = await import('./compile.ts');
  try {
    const built = await buildApp(dir, out, { progress, optimizeLevel });
    if (built.warnings) process.stderr.write(`${built.warnings}\n`);
    const shown = path.relative(process.cwd(), built.path) || built.path;
    process.stdout.write(`${shown}\nsha256 ${built.sha256}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof AppBuildError)) throw error;
    if (error.details) process.stderr.write(`${error.details}\n`);
    process.stderr.write(`app build: ${error.message}\n`);
    return 1;
  }
}

export function registerBuild(program: Command): void {
  program
    .command('build')
    .description(APP_COMMANDS.build)
    .argument('<dir>', 'the app directory (holding assembly/index.ts)')
    .option('--out <file>', 'where to write the module (default <dir>/build/<name>-<version>.wasm)')
    .option('--optimize <level>', OPTIMIZE_HELP, optimizeLevelOf, DEFAULT_OPTIMIZE_LEVEL)
    .action(async (dir: string, options: { out?: string; optimize: number }) => {
      const code = await runBuild(dir, options.out, options.optimize);
      // Exit once the output is written rather than when the event loop drains: nothing the check
      // started (a sandbox thread, a double's socket) may keep the command alive after its answer.
      await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
      process.exit(code);
    });
}
