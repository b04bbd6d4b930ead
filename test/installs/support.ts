// Installs through the real api: a catalogue platform (real runner inspecting uploads), versions uploaded
// and published by a tenant, platform versions through the release reconciliation, and small helpers.
import pino from 'pino';
import { expect } from 'vitest';
import { moduleStorageOf } from '../../src/api/index.ts';
import { type ReleaseModule, reconcileRelease } from '../../src/catalogue/release.ts';
import { parseManifest } from '../../src/module/manifest.ts';
import { capMemory, sha256Hex } from '../../src/module/wasm.ts';
import { appModule, type CataloguePlatform } from '../catalogue/support.ts';
import { buildFixture } from '../support/assemblyscript.ts';

export const SECRET_KEY_HEX = 'ab'.repeat(32);

/**
 * The echo fixture with a manifest that reads its config: a vendor URL (hostsFromConfig /baseUrl), secret
 * variables (/variables), a secret required only for region eu, and the webhook id source in config.
 */
export function configurableModule(name: string, version: string): Promise<Uint8Array> {
  return buildFixture('echo', {
    '"name":"echo","version":"1.0.0"': `"name":"${name}","version":"${version}"`,
    '"configSchema":{"type":"object"},': `"configSchema":{"type":"object","properties":{"baseUrl":{"type":"string"},"region":{"type":"string","enum":["eu","us"]},"variables":{"type":"array"},"idSource":{"type":"object"},"note":{"type":"string"}}},"hostsFromConfig":["/baseUrl"],"secretsFromConfig":"/variables",`,
    '"secrets":[{"name":"API_KEY"}]':
      '"secrets":[{"name":"API_KEY"},{"name":"EU_TOKEN","requiredWhen":[{"config":"/region","in":["eu"]}]}]',
    '"handles":{"webhook":true,"handoff":true}':
      '"handles":{"webhook":true,"webhookExternalIdFromConfig":"/idSource","handoff":false}',
  });
}

export interface Version {
  id: string;
  name: string;
  version: string;
  sha256: string;
}

/** Uploads and publishes a tenant's own version. */
export async function published(
  platform: CataloguePlatform,
  token: string,
  bytes: Uint8Array | Promise<Uint8Array>,
): Promise<Version> {
  const upload = await platform.upload(await bytes, token);
  expect(upload.status).toBe(201);
  const version = (await upload.json()) as Version;
  const publish = await platform.fetch(`/apps/${version.name}/versions/${version.id}/publish`, {
    method: 'POST',
    token,
  });
  expect(publish.status).toBe(200);
  return version;
}

export const publishEcho = (platform: CataloguePlatform, token: string, name: string, version = '1.0.0') =>
  published(platform, token, appModule(name, version));

/** Publishes platform versions of the echo fixture as a release would; answers their ids by version. */
export async function publishPlatformApp(platform: CataloguePlatform, name: string, versions: string[]) {
  const release: ReleaseModule[] = [];
  for (const version of versions) {
    const capped = capMemory(await appModule(name, version), 64);
    if (!capped.ok) throw new Error(capped.message);
    const manifest = parseManifest({
      interface: 2,
      name,
      version,
      configSchema: { type: 'object' },
      secrets: [{ name: 'API_KEY' }],
      actions: [{ name: 'echo', input: { type: 'object' }, output: { type: 'object' } }],
      hosts: ['api.vendor.test'],
      handles: { webhook: true, handoff: true },
    });
    if (!manifest.ok) throw new Error(manifest.message);
    release.push({ manifest: manifest.manifest, bytes: capped.bytes, sha256: sha256Hex(capped.bytes) });
  }
  await reconcileRelease(platform.database, moduleStorageOf(platform), release, pino({ level: 'silent' }));
  const rows = (await (await platform.fetch(`/apps/${name}/versions`)).json()) as { items: Version[] };
  return new Map(rows.items.map((v) => [v.version, v.id]));
}

export async function errorOf(response: Response, status: number) {
  const body = (await response.json()) as {
    error: { code: string; message: string; details?: Record<string, unknown> };
  };
  expect(response.status, JSON.stringify(body)).toBe(status);
  return body.error;
}

export async function ok<T = Record<string, unknown>>(response: Response, status = 200): Promise<T> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  return (text ? JSON.parse(text) : null) as T;
}
