// A command loads only what it runs (scripts/cli-build.js, src/cli/lazy-commands.ts): `--help` loads
// commander alone, so it answers at once, and `platform token` loads no HTTP server, Sigstore or telemetry
// SDK. Read through a module hook that lists every package a command loads (timings are bench/cli.ts's).
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { namedCommand } from '../../src/cli/lazy-commands.ts';
import { APP_BIN, BIN, baseEnv, OPS_BIN } from '../support/processes.ts';

/** Prints, at exit, every package the process loaded (by the folder under node_modules it came from). */
const HOOK = `
import { registerHooks } from 'node:module';
const packages = new Set();
registerHooks({
  load(url, context, next) {
    const match = /\\/node_modules\\/((?:@[^/]+\\/)?[^/.][^/]*)\\//.exec(url);
    if (match) packages.add(match[1]);
    return next(url, context);
  },
});
process.on('exit', () => process.stderr.write('\\nPACKAGES ' + JSON.stringify([...packages].sort()) + '\\n'));
`;

let dir: string;
let hook: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'apps-platform-lazy-'));
  hook = path.join(dir, 'hook.mjs');
  await fs.writeFile(hook, HOOK);
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

/** The packages `bin args` loads, and its exit code. */
async function packagesOf(bin: string, args: string[], env: Record<string, string> = {}) {
  const result = await new Promise<{ code: number; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ['--import', hook, bin, ...args],
      { env: baseEnv({ DATA_DIR: path.join(dir, 'data'), ...env }) },
      (error, _stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stderr }),
    );
  });
  const line = /\nPACKAGES (.*)\n/.exec(result.stderr)?.[1];
  expect(line, result.stderr).toBeDefined();
  return { code: result.code, packages: JSON.parse(line as string) as string[] };
}

describe('namedCommand', () => {
  const names = ['apps', 'platform', 'audit'];
  it.each<[string[], string | null]>([
    [['apps', 'list', '--json'], 'apps'],
    [['--json', 'audit'], 'audit'],
    [['help', 'platform'], 'platform'],
    [['help'], null],
    [['--help'], null],
    [['-V'], null],
    [[], null],
    [['nonsense', 'apps'], null],
    [['constructor'], null],
  ])('%j → %s', (argv, named) => {
    expect(namedCommand(argv, names)).toBe(named);
  });
});

describe('what a command loads', () => {
  it.each([
    ['ops --help', OPS_BIN, ['--help']],
    ['app --help', APP_BIN, ['--help']],
    ['platform --help', BIN, ['--help']],
    ['platform token --help', BIN, ['token', '--help']],
    ['ops (no command)', OPS_BIN, []],
  ])('%s: commander alone', async (_name, bin, args) => {
    const { packages } = await packagesOf(bin, args);
    expect(packages).toEqual(['commander']);
  });

  it('ops audit --help: its own code, not the api’s server nor the runner', async () => {
    const { code, packages } = await packagesOf(OPS_BIN, ['audit', '--help']);
    expect(code).toBe(0);
    for (const heavy of ['fastify', 'esbuild', '@extism/extism', 'tsx'])
      expect(packages, heavy).not.toContain(heavy);
  });

  it('app vendor-double --help: the double, not the test harness behind the package it comes from', async () => {
    const { code, packages } = await packagesOf(APP_BIN, ['vendor-double', '--help']);
    expect(code).toBe(0);
    for (const heavy of ['esbuild', 'ajv', 'fastify', '@extism/extism', 'pg', 'tsx'])
      expect(packages, heavy).not.toContain(heavy);
  });

  it('platform token refused for its options: nothing beyond what checking them takes', async () => {
    const { code, packages } = await packagesOf(BIN, [
      'token',
      '--tenant',
      'acme',
      '--role',
      'admin',
      '--expires-in',
      'x',
    ]);
    expect(code).toBe(2);
    for (const heavy of ['fastify', '@sigstore/verify', '@opentelemetry/sdk-trace', 'esbuild', 'ajv', 'tsx'])
      expect(packages, heavy).not.toContain(heavy);
  });
});
