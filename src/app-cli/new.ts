// `app new <dir>`: scaffolds an app that builds (`app build <dir>`) and passes its conformance check
// (`app test <dir>`) and its own tests (`npx vitest run --root <dir>`).
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { nameProblem } from '../module/index.ts';
import { APP_COMMANDS } from './commands.ts';
import { AppUsageError } from './errors.ts';
import {
  appSource,
  conformanceJson,
  GITIGNORE,
  GITIGNORE_IN_REPO,
  readme,
  type ScaffoldInput,
  testSource,
  VITEST_CONFIG,
} from './scaffold.ts';

const REPO = path.resolve(import.meta.dirname, '../..');

/** An app name from a directory name: lower case, other characters as hyphens. */
export function nameFromDir(dir: string): string {
  return path
    .basename(path.resolve(dir))
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 100);
}

function titleOf(name: string): string {
  const words = name.split('-').filter((w) => w.length > 0);
  const title = words.map((w) => w[0]?.toUpperCase() + w.slice(1)).join(' ');
  return (title || name).slice(0, 60);
}

async function isEmptyOrAbsent(dir: string): Promise<boolean> {
  try {
    return (await fs.readdir(dir)).length === 0;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') return false;
    throw error;
  }
}

export interface NewAppResult {
  dir: string;
  name: string;
  files: string[];
  /** Created inside this repository, outside its release catalogue: git ignores it (its .gitignore). */
  ignoredByRepo: boolean;
}

/** Whether target lies inside this repository but outside apps/, where the release catalogue lives. */
export function insideRepoOutsideCatalogue(target: string): boolean {
  const within = (parent: string) => !path.relative(parent, target).startsWith('..');
  return within(REPO) && !within(path.join(REPO, 'apps'));
}

/** Writes the scaffold into dir (absent or empty); throws AppUsageError for a bad name or a used dir. */
export async function newApp(dir: string, name = nameFromDir(dir)): Promise<NewAppResult> {
  const problem = nameProblem(name, 'app');
  if (problem !== null) {
    throw new AppUsageError(`app name ${JSON.stringify(name)}: ${problem}; give one with --name`);
  }
  if (!(await isEmptyOrAbsent(dir))) throw new AppUsageError(`${dir} exists and is not empty`);
  const target = path.resolve(dir);
  const input: ScaffoldInput = {
    name,
    title: titleOf(name),
    repoFromTest: path.relative(path.join(target, 'test'), REPO).split(path.sep).join('/'),
    dirForCommands: dir,
  };
  const ignoredByRepo = insideRepoOutsideCatalogue(target);
  const files: [string, string][] = [
    ['assembly/index.ts', appSource(input)],
    ['conformance.json', conformanceJson()],
    ['test/app.test.ts', testSource(input)],
    ['vitest.config.mjs', VITEST_CONFIG],
    ['README.md', readme(input)],
    ['.gitignore', ignoredByRepo ? GITIGNORE_IN_REPO : GITIGNORE],
  ];
  for (const [file, text] of files) {
    await fs.mkdir(path.dirname(path.join(target, file)), { recursive: true });
    await fs.writeFile(path.join(target, file), text, { flag: 'wx' });
  }
  return { dir: target, name, files: files.map(([file]) => file), ignoredByRepo };
}

export function registerNew(program: Command): void {
  program
    .command('new')
    .description(APP_COMMANDS.new)
    .argument('<dir>', 'directory to create (absent or empty)')
    .option('--name <name>', 'the app name (default: from the directory name)')
    .action(async (dir: string, options: { name?: string }) => {
      const created = await newApp(dir, options.name);
      process.stdout.write(
        `created app ${created.name} in ${dir}: ${created.files.join(', ')}\n` +
          (created.ignoredByRepo
            ? `${dir} is inside the platform repository: its .gitignore keeps it out of the repository's git status (create apps outside the clone to keep them in a repository of their own)\n`
            : '') +
          `next: app build ${dir} && app test ${dir}\n`,
      );
    });
}
