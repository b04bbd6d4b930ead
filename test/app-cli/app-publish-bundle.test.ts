// `app publish <module> --bundle <file>` (docs/provenance.md "Attaching it"): the real command, as a
// process, against the real api requiring signatures, with a bundle signed by local Sigstore services.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capMemory } from '../../src/module/index.ts';
import { appModule, type CataloguePlatform, startCataloguePlatform } from '../catalogue/support.ts';
import { APP_BIN, ROOT } from '../support/processes.ts';
import { keylessPolicy, type LocalSigstore, startLocalSigstore } from '../support/sigstore.ts';

let sigstore: LocalSigstore;
let platform: CataloguePlatform;
let dir: string;

beforeAll(async () => {
  sigstore = await startLocalSigstore();
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'app-publish-'));
  platform = await startCataloguePlatform({
    APP_SIGNATURES: 'required',
    APP_TRANSPARENCY_TRUSTED_ROOTS: sigstore.rootPath,
    APP_TRUSTED_SIGNERS: keylessPolicy('acme-ci', 'ci@acme.test'),
  });
}, 120_000);
afterAll(async () => {
  await platform?.close();
  await sigstore?.close();
  await fs.rm(dir, { recursive: true, force: true });
});

function app(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [APP_BIN, ...args], { cwd: ROOT, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** A built module (memory capped, as app build writes it) in a file, and its bytes. */
async function moduleFile(version: string) {
  const capped = capMemory(await appModule('cli-signed', version), 64);
  if (!capped.ok) throw new Error(capped.message);
  const file = path.join(dir, `cli-signed-${version}.wasm`);
  await fs.writeFile(file, capped.bytes);
  return { file, bytes: capped.bytes };
}

async function bundleFile(name: string, bundle: unknown): Promise<string> {
  const file = path.join(dir, name);
  await fs.writeFile(file, JSON.stringify(bundle));
  return file;
}

describe('app publish --bundle', () => {
  it('attaches a trusted bundle, then publishes', async () => {
    const token = await platform.token({ tenant: 'cli-a' });
    const { file, bytes } = await moduleFile('1.0.0');
    const bundle = await bundleFile('ok.json', await sigstore.keyless(bytes, { identity: 'ci@acme.test' }));
    const result = await app([
      'publish',
      file,
      '--bundle',
      bundle,
      '--token',
      token,
      '--api-url',
      platform.url,
    ]);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(
      /^uploaded cli-signed 1\.0\.0 as version [0-9a-f-]{36}\npublished: installs of this tenant may use it now\n$/,
    );
    const versions = await (await platform.fetch('/apps/cli-signed/versions', { token })).json();
    expect(versions.items[0].provenance).toMatchObject({ trusted: true, trustedSigner: 'acme-ci' });
  });

  it('a bundle for another module: exit 1 naming the provenance step and the platform’s answer', async () => {
    const token = await platform.token({ tenant: 'cli-b' });
    const { file } = await moduleFile('1.0.1');
    const other = await moduleFile('9.0.0');
    const bundle = await bundleFile(
      'other.json',
      await sigstore.keyless(other.bytes, { identity: 'ci@acme.test' }),
    );
    const result = await app([
      'publish',
      file,
      '--bundle',
      bundle,
      '--token',
      token,
      '--api-url',
      platform.url,
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^app: provenance of version [0-9a-f-]{36} refused: 400 provenance_invalid: the signature is over another module\n$/,
    );
  });

  it('without --bundle under required: exit 1, the publish refused with provenance_required', async () => {
    const token = await platform.token({ tenant: 'cli-c' });
    const { file } = await moduleFile('1.0.2');
    const result = await app(['publish', file, '--token', token, '--api-url', platform.url]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^app: publish of version [0-9a-f-]{36} refused: 409 provenance_required: APP_SIGNATURES is required: the version has no trusted signer\n$/,
    );
  });
});
