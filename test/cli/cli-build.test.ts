// The commands run from a build of their sources (scripts/cli-build.js), never a stale one: a build whose
// inputs changed, or that is missing, is made again before the command runs; code that finds files beside
// its source still finds them there.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliProject, cliEntry, freshBuild, type Stamps, sameStamps } from '../../scripts/cli-build.js';

const run = promisify(execFile);

describe('sameStamps', () => {
  const recorded: Stamps = { 'src/a.ts': [10, 1000], 'src/b.ts': [20, 2000], 'tsconfig.json': null };
  it.each<[string, Stamps, boolean]>([
    ['nothing changed', { ...recorded }, true],
    ['a file edited (size)', { ...recorded, 'src/a.ts': [11, 1000] }, false],
    ['a file touched (time)', { ...recorded, 'src/b.ts': [20, 2001] }, false],
    ['a file edited back to an older time', { ...recorded, 'src/b.ts': [20, 1999] }, false],
    ['a file deleted', { ...recorded, 'src/a.ts': null }, false],
    ['an absent setting appeared', { ...recorded, 'tsconfig.json': [5, 5] }, false],
    ['an input missing from the check', { 'src/a.ts': [10, 1000] }, false],
  ])('%s: %s', (_case, now, same) => {
    expect(sameStamps(recorded, now)).toBe(same);
  });

  it('an empty record is never fresh', () => {
    expect(sameStamps({}, {})).toBe(false);
  });
});

describe('a build of a project', () => {
  let root: string;
  let project: CliProject;
  const quiet = { write: () => true };

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'apps-platform-cli-build-'));
    await fs.mkdir(path.join(root, 'src', 'data'), { recursive: true });
    await fs.writeFile(path.join(root, 'src', 'data', 'greeting.txt'), 'hello from beside the source\n');
    await fs.writeFile(path.join(root, 'src', 'word.ts'), "export const word: string = 'one';\n");
    await fs.writeFile(
      path.join(root, 'src', 'main.ts'),
      [
        "import fs from 'node:fs';",
        "import path from 'node:path';",
        "import { word } from './word.ts';",
        // Found beside the source, not beside the build; and a template keeps its text as written.
        "const beside = fs.readFileSync(path.join(import.meta.dirname, 'data', 'greeting.txt'), 'utf8').trim();",
        'const template = `import.meta.dirname`;',
        "process.stdout.write([word, beside, template, new URL(import.meta.url).pathname].join('|'));",
      ].join('\n'),
    );
    project = { root, entries: { main: 'src/main.ts' } };
  });

  afterAll(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });

  async function runMain(): Promise<string> {
    const entry = fileURLToPath(await cliEntry('main', quiet, project));
    return (await run(process.execPath, [entry])).stdout.trim();
  }

  it('is made when missing, and runs with its sources’ own places', async () => {
    expect(freshBuild(project)).toBeNull();
    expect(await runMain()).toBe(
      `one|hello from beside the source|import.meta.dirname|${path.join(root, 'src', 'main.ts')}`,
    );
    expect(freshBuild(project)).not.toBeNull();
  });

  it('is reused while nothing changed', async () => {
    const before = freshBuild(project);
    expect(await runMain()).toMatch(/^one\|/);
    expect(freshBuild(project)).toBe(before);
  });

  it('is made again when an imported source changes, before the command runs', async () => {
    await fs.writeFile(path.join(root, 'src', 'word.ts'), "export const word: string = 'two';\n");
    expect(freshBuild(project)).toBeNull();
    expect(await runMain()).toMatch(/^two\|/);
  });

  it('is made again when an edit keeps the size but not the time', async () => {
    const file = path.join(root, 'src', 'word.ts');
    await fs.writeFile(file, "export const word: string = 'six';\n");
    const later = new Date(Date.now() + 5_000);
    await fs.utimes(file, later, later);
    expect(freshBuild(project)).toBeNull();
    expect(await runMain()).toMatch(/^six\|/);
  });

  it('is made again when its folder is gone', async () => {
    const dir = freshBuild(project) as string;
    await fs.rm(dir, { recursive: true, force: true });
    expect(freshBuild(project)).toBeNull();
    expect(await runMain()).toMatch(/^six\|/);
  });

  it('a source that no longer compiles fails the command, naming it; the old build is not used', async () => {
    await fs.writeFile(path.join(root, 'src', 'word.ts'), 'export const word: string = ;\n');
    await expect(cliEntry('main', quiet, project)).rejects.toThrow(/could not be built[\s\S]*word\.ts/);
    expect(freshBuild(project)).toBeNull();
  });
});
