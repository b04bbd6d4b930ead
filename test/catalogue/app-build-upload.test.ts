// The author's path end to end: `app new`, `app build`, then upload and publish through the real api
// and runner; what `app build` printed is what the catalogue stores.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CataloguePlatform, startCataloguePlatform } from './support.ts';

const run = promisify(execFile);
const APP = path.resolve(import.meta.dirname, '../../bin/app.js');

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
    const built = await run(process.execPath, [APP, 'build', appDir, '--out', out]);
    const sha256 = /[0-9a-f]{64}/.exec(built.stdout)?.[0];
    expect(sha256).toBeDefined();

    const upload = await platform.upload(new Uint8Array(await fs.readFile(out)));
    expect(upload.status).toBe(201);
    const version = await upload.json();
    expect(version.sha256).toBe(sha256);

    const token = await platform.token();
    const publish = await platform.fetch(`/apps/${version.name}/versions/${version.id}/publish`, {
      method: 'POST',
      token,
    });
    expect(publish.status).toBe(200);
    const listed = await (await platform.fetch(`/apps/${version.name}/versions`, { token })).json();
    expect(listed.items.map((v: { id: string; status: string }) => [v.id, v.status])).toEqual([
      [version.id, 'published'],
    ]);

    const stranger = await platform.token({ tenant: 'stranger-co' });
    expect((await platform.fetch(`/apps/${version.name}`, { token: stranger })).status).toBe(404);
  }, 120_000);
});
