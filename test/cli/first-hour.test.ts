// What a new user meets first, run the way the README prints it: `npx platform` and `npx app` answer from
// the clone's own bins (never installing the clone into npx's cache), and a usage error exits 2.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { PLATFORM_VERSION } from '../../src/version.ts';
import { baseEnv, cleanUpProcesses, ROOT, removeTempDirs, run, tempDir } from '../support/processes.ts';

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
      [
        'node bin/platform.js token --tenant acme',
        /--role: admin or analyst \(or --applicant <submissionId> for an applicant\)/,
      ],
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

describe('the README walkthrough', () => {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const show = /^show\(\) \{.*\}$/m.exec(readme)?.[0] ?? '';

  it('defines show, and pipes each install call through it with the fields that matter', () => {
    expect(show).not.toBe('');
    expect(readme).toContain(`"approveHosts":["127.0.0.1:4010"]}' | show name enabled hosts missingSecrets`);
    expect(readme).toContain('show name storedSecrets missingSecrets');
  });

  it('prints only the fields show names, as one line of JSON, and an error answer whole', async () => {
    // An install's answer as the platform gives it, in short: its version's manifest is most of it.
    const install = {
      id: 'b7f2…',
      name: 'vendor',
      enabled: false,
      hosts: ['127.0.0.1:4010'],
      version: { manifest: { description: 'x'.repeat(10_000) } },
      missingSecrets: ['API_KEY'],
    };
    const error = { error: { code: 'conflict', message: 'name taken', requestId: 'r-1' } };
    const pipe = async (answer: unknown, fields: string) => {
      const result = await run([], baseEnv({ ANSWER: JSON.stringify(answer) }), {
        shell: `${show}\nprintf '%s\\n' "$ANSWER" | show ${fields}`,
      });
      expect(result.stderr).toBe('');
      return result.stdout;
    };
    expect(await pipe(install, 'name enabled hosts missingSecrets')).toBe(
      '{"name":"vendor","enabled":false,"hosts":["127.0.0.1:4010"],"missingSecrets":["API_KEY"]}\n',
    );
    expect(await pipe(error, 'name enabled')).toBe(`${JSON.stringify(error)}\n`);
  });
});
