// The author's path end to end: `app new`, `app build`, then upload and publish through the real api
// and runner with `app publish`; what `app build` printed is what the catalogue stores.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/free-port.ts';
import { type CataloguePlatform, startCataloguePlatform } from './support.ts';

const run = promisify(execFile);
const APP = path.resolve(import.meta.dirname, '../../bin/app.js');

/** The `app` command with the given API_URL and TOKEN only (none inherited); answers its exit code too. */
function app(args: string[], env: Record<string, string>) {
  const { TOKEN: _token, API_URL: _url, ...inherited } = process.env;
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [APP, ...args], { env: { ...inherited, ...env } }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

let platform: CataloguePlatform;
let dir: string;
beforeAll(async () => {
  platform = await startCataloguePlatform();
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'apps-platform-author-'));
}, 120_000);
afterAll(async () => {
  await platform?.close();
  await fs.rm(dir, { recursive: true, force: true });
});

describe('an app built with `app build`', () => {
  it('uploads, publishes and lists with the hash the build printed; another tenant sees none of it', async () => {
    const appDir = path.join(dir, 'demo');
    await run(process.execPath, [APP, 'new', appDir]);
    const out = path.join(dir, 'demo.wasm');
    const built = await run(process.execPath, [APP, 'build', appDir, '--out', out, '--optimize', '0']);
    const sha256 = /[0-9a-f]{64}/.exec(built.stdout)?.[0];
    expect(sha256).toBeDefined();

    // `app publish`: upload and publish against API_URL with TOKEN, as the guide does.
    const token = await platform.token();
    const published = await app(['publish', out], { API_URL: platform.url, TOKEN: token });
    expect(published.stderr).toBe('');
    expect(published.code).toBe(0);
    const [uploadedLine, outcome] = published.stdout.trim().split('\n');
    const id = /^uploaded demo 0\.1\.0 as version ([0-9a-f-]{36})$/.exec(uploadedLine ?? '')?.[1];
    expect(id, published.stdout).toBeDefined();
    expect(outcome).toBe('published: installs of this tenant may use it now');
    const listed = await (await platform.fetch('/apps/demo/versions', { token })).json();
    expect(
      listed.items.map((v: { id: string; status: string; sha256: string }) => [v.id, v.status, v.sha256]),
    ).toEqual([[id, 'published', sha256]]);

    // The same version again: the platform's refusal and what to do, on one line, exit 1.
    const again = await app(['publish', out], { API_URL: platform.url, TOKEN: token });
    expect(again.code).toBe(1);
    expect(again.stdout).toBe('');
    expect(again.stderr).toBe(
      'app: upload refused: 409 conflict: version 0.1.0 of demo already exists; raise "version" in the app\'s manifest (now 0.1.0) and build again\n',
    );

    const stranger = await platform.token({ tenant: 'stranger-co' });
    expect((await platform.fetch('/apps/demo', { token: stranger })).status).toBe(404);

    // A tenant whose settings require approval: the version awaits another holder of apps:publish.
    const careful = await platform.token({ tenant: 'careful-co' });
    const settings = await platform.fetch('/tenants/me/settings', {
      method: 'PUT',
      token: careful,
      json: {
        approvals: { required: true, requiredFor: ['app'], fourEyes: true },
        collection: { flowUrl: null },
      },
    });
    expect(settings.status).toBe(200);
    const awaiting = await app(['publish', out, '--token', careful, '--api-url', platform.url], {});
    expect(awaiting.stderr).toBe('');
    expect(awaiting.stdout).toMatch(
      /^uploaded demo 0\.1\.0 as version [0-9a-f-]{36}\nawaiting approval [0-9a-f-]{36}: another holder of apps:publish approves it \(POST \/apps\/demo\/versions\/[0-9a-f-]{36}\/approve\)\n$/,
    );
    // A build at -O3 takes 20 s on an idle machine, minutes on a loaded one.
  }, 300_000);

  it('says what is missing: a token (exit 2), a platform at API_URL (exit 1)', async () => {
    const module = path.join(dir, 'absent.wasm');
    expect(await app(['publish', module], {})).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'app: no token: set TOKEN or give --token (npx platform token --tenant <name> --role admin prints one)\n',
    });
    await fs.writeFile(module, 'not a module');
    const closed = `http://127.0.0.1:${await freePort()}`;
    const unreachable = await app(['publish', module], { API_URL: closed, TOKEN: 'x' });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toBe(
      `app: cannot reach the platform at ${closed} (ECONNREFUSED; the URL from API_URL): is it running? --api-url or API_URL names another\n`,
    );
  });
});
