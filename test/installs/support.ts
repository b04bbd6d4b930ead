// Installs through the real api: a catalogue platform (real runner inspecting uploads), versions uploaded
// and published by a tenant, platform versions through the release reconciliation, and small helpers.
import { request as httpRequest } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import pino from 'pino';
import { expect } from 'vitest';
import { moduleStorageOf } from '../../src/api/index.ts';
import { type ReleaseModule, reconcileRelease } from '../../src/catalogue/release.ts';
import type { Queryable, Tx } from '../../src/db/pool.ts';
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
  return (await publishPlatformApps(platform, { [name]: versions })).get(name) as Map<string, string>;
}

/**
 * Publishes several platform apps in one release (a release withdraws the platform versions it no longer
 * carries); answers each app's version ids by version.
 */
export async function publishPlatformApps(platform: CataloguePlatform, apps: Record<string, string[]>) {
  const release: ReleaseModule[] = [];
  for (const [name, versions] of Object.entries(apps)) {
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
  }
  await reconcileRelease(platform.database, moduleStorageOf(platform), release, pino({ level: 'silent' }));
  const byApp = new Map<string, Map<string, string>>();
  for (const name of Object.keys(apps)) {
    const rows = (await (await platform.fetch(`/apps/${name}/versions`)).json()) as { items: Version[] };
    byApp.set(name, new Map(rows.items.map((v) => [v.version, v.id])));
  }
  return byApp;
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

/**
 * A request to the api with the Host header a caller chose (fetch always sends the address it dials):
 * answers like fetch, so errorOf and ok read it.
 */
export function fetchWithHost(
  platform: CataloguePlatform,
  pathname: string,
  init: { host: string; token: string; method?: string; json?: unknown },
): Promise<Response> {
  const body = init.json === undefined ? undefined : JSON.stringify(init.json);
  return new Promise((resolve, reject) => {
    const sent = httpRequest(
      `${platform.url}${pathname}`,
      {
        method: init.method ?? 'GET',
        headers: {
          host: init.host,
          authorization: `Bearer ${init.token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
      },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () =>
          resolve(new Response(Buffer.concat(chunks), { status: answer.statusCode ?? 500 })),
        );
        answer.on('error', reject);
      },
    );
    sent.on('error', reject);
    sent.end(body);
  });
}

/**
 * Resolves once another session of this test's database waits on a lock the transaction `tx` holds: a
 * state, not a timing. Only sessions `tx` blocks count, so other test files sharing the server (and
 * their lock waits) play no part.
 */
export async function untilBlockedBy(db: Queryable, tx: Tx): Promise<void> {
  const holder = (await tx.execute(sql`select pg_backend_pid() as pid`)).rows[0] as { pid: number };
  for (;;) {
    const waiting = await db.execute(
      sql`select count(*)::int as n from pg_stat_activity
          where datname = current_database() and ${holder.pid}::int = any(pg_blocking_pids(pid))`,
    );
    if ((waiting.rows[0] as { n: number }).n > 0) return;
    await delay(10);
  }
}

/** A test call's answer of the echo fixture: the envelope it was sent. */
interface EchoAnswer {
  status: string;
  output: { envelope: { call: Record<string, unknown> } };
}

/** Installs the echo app as `w` with its secret stored; answers the install's id. */
export async function echoInstall(platform: CataloguePlatform, token: string): Promise<string> {
  const v = await publishEcho(platform, token, 'hooked-app');
  const created = await ok<{ id: string }>(
    await platform.fetch('/app-installs', {
      method: 'POST',
      token,
      json: { name: 'w', versionId: v.id, enabled: false, approveHosts: ['api.vendor.test'] },
    }),
    201,
  );
  await ok(
    await platform.fetch('/app-installs/w/secrets/API_KEY', {
      method: 'POST',
      token,
      json: { value: 'sk-echo-key' },
    }),
  );
  return created.id;
}

/** The view and a test call's call object, both asked for with a forged Host header. */
export async function seenThroughForgedHost(platform: CataloguePlatform, token: string) {
  const host = 'evil.example.com';
  const view = await ok<{ webhookUrl: string | null }>(
    await fetchWithHost(platform, '/app-installs/w', { host, token }),
  );
  const tested = await ok<EchoAnswer>(
    await fetchWithHost(platform, '/app-installs/w/test', {
      host,
      token,
      method: 'POST',
      json: { action: 'echo', input: {} },
    }),
  );
  expect(tested.status).toBe('success');
  return { webhookUrl: view.webhookUrl, call: tested.output.envelope.call };
}
