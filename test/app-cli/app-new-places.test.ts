// `app new` wherever the author runs it: inside the platform clone (as the guide's quick start does) and
// outside it. The app's own tests are found by `npx vitest run --root <dir>` in both places, and an app
// made inside the clone leaves the clone's `git status` clean.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const made: string[] = [];

afterAll(async () => {
  await Promise.all(made.map((dir) => fs.rm(dir, { recursive: true, force: true })));
});

function exec(file: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd: ROOT, timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

/** The tests `npx vitest list --root dir` finds, run from the repository as the guide says. */
async function listedTests(dir: string): Promise<string[]> {
  const listed = await exec('npx', ['vitest', 'list', '--root', dir]);
  expect(listed.code, listed.stderr).toBe(0);
  return listed.stdout.trim().split('\n');
}

const SCAFFOLD_TESTS = [
  'test/app.test.ts > greets by name with the configured greeting',
  'test/app.test.ts > refuses an unknown action',
  'test/app.test.ts > passes the conformance check',
];

describe('app new', () => {
  it('inside the clone: its tests run with --root, and git status shows nothing of it', async () => {
    const name = `scratch-app-${process.pid}`;
    made.push(path.join(ROOT, name));
    const created = await exec(process.execPath, ['bin/app.js', 'new', name]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toContain(
      `${name} is inside the platform repository: its .gitignore keeps it out`,
    );

    const status = await exec('git', ['status', '--porcelain', '--untracked-files=all', '--', name]);
    expect(status).toMatchObject({ code: 0, stdout: '' });
    expect(await listedTests(name)).toEqual(SCAFFOLD_TESTS);
  }, 60_000);

  it('outside the clone: its tests run with --root, and only its build output is ignored', async () => {
    const dir = path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'app-new-places-')), 'demo');
    made.push(path.dirname(dir));
    const created = await exec(process.execPath, ['bin/app.js', 'new', dir]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).not.toContain('inside the platform repository');
    expect(await fs.readFile(path.join(dir, '.gitignore'), 'utf8')).toBe('build/\n');
    expect(await listedTests(dir)).toEqual(SCAFFOLD_TESTS);
  }, 60_000);
});
