// `ops platform publish <dir>` with an app directory (docs/operations.md "ops platform publish"): built as
// the release build builds each app (the module app build writes, in <dir>/build), then published; a
// second publish reuses that build while it is up to date.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/module/wasm.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { opsOn, platformRow } from './platform-support.ts';

const run = promisify(execFile);
const APP = path.resolve(import.meta.dirname, '../../bin/app.js');

let platform: TestPlatform;
const ops = opsOn(() => platform);
let appDir: string;

beforeAll(async () => {
  platform = await startTestPlatform({ APP_RUNNER_TOKEN: 'x' });
  appDir = path.join(platform.config.dataDir, 'demo');
  await run(process.execPath, [APP, 'new', appDir]);
}, 120_000);
afterAll(async () => platform?.close());

describe('ops platform publish <app directory>', () => {
  it('builds the app as the release build does and publishes the module it wrote', async () => {
    const result = await ops.run(['platform', 'publish', appDir, '--new-app', '--by', 'grace', '--json']);
    expect(result.code, result.stderr).toBe(0);
    // The build's steps on standard error, the answer alone on standard output.
    expect(result.stderr).toContain('compiling');
    const { version } = JSON.parse(result.stdout);
    const built = new Uint8Array(await fs.readFile(path.join(appDir, 'build', 'demo-0.1.0.wasm')));
    expect(version).toMatchObject({
      name: 'demo',
      version: '0.1.0',
      platformSource: 'operator',
      status: 'published',
      sha256: sha256Hex(built),
    });
    expect(await platformRow(platform.database, 'demo', '0.1.0')).toMatchObject({ sha256: sha256Hex(built) });

    // Again: the up-to-date build is reused (nothing compiled), and the version exists.
    const again = await ops.run(['platform', 'publish', appDir, '--by', 'grace']);
    expect(again.stderr).not.toContain('compiling');
    expect(again.stderr).toMatch(/^conflict: demo@0\.1\.0 already exists \(published\)/);
    expect(again.code).toBe(1);
  }, 240_000);
});
