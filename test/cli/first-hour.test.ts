// What a new user meets first, run the way the README prints it: `npx platform` and `npx app` answer from
// the clone's own bins (never installing the clone into npx's cache), and a usage error exits 2.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { PLATFORM_VERSION } from '../../src/version.ts';
import { baseEnv, cleanUpProcesses, removeTempDirs, run, tempDir } from '../support/processes.ts';

afterEach(cleanUpProcesses);
afterAll(removeTempDirs);

/** Runs a command line through a shell in the repository, as a reader pastes it. */
const shell = (command: string, env: Record<string, string> = {}) =>
  run([], baseEnv(env), { shell: command });

describe('the README commands in the clone', () => {
  it('runs `npx platform` and `npx app` from the clone without installing anything', async () => {
    // An empty npm cache of its own: npx installs a package it does not find locally under _npx there
    // (the clone itself, before its bins were linked: about a minute, silent).
    const cache = await tempDir('apps-platform-npx-cache-');
    for (const command of ['npx -- platform --version', 'npx -- app --version']) {
      const result = await shell(command, { npm_config_cache: cache });
      expect(result.code, `${command}: ${result.stderr}`).toBe(0);
      expect(result.stdout).toBe(`${PLATFORM_VERSION}\n`);
    }
    expect(existsSync(path.join(cache, '_npx'))).toBe(false);
  });
});

describe('usage errors', () => {
  it('exit 2 for a missing option, an unknown command or option, and a missing argument', async () => {
    const cases: [string, RegExp][] = [
      ['node bin/platform.js token --tenant acme', /required option '--role <role>' not specified/],
      ['node bin/platform.js tokn', /unknown command 'tokn'/],
      ['node bin/platform.js start --rol all', /unknown option '--rol'/],
      ['node bin/app.js buld demo', /unknown command 'buld'/],
      ['node bin/app.js build', /missing required argument 'dir'/],
      ['node bin/app.js publish', /missing required argument 'module'/],
    ];
    const results = await Promise.all(cases.map(([command]) => shell(command)));
    results.forEach((result, i) => {
      const [command, message] = cases[i] as [string, RegExp];
      expect(result.code, command).toBe(2);
      expect(result.stdout, command).toBe('');
      expect(result.stderr, command).toMatch(message);
    });
  });

  it('exits 0 for --help', async () => {
    const help = await shell('node bin/app.js --help');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: app/);
  });
});
