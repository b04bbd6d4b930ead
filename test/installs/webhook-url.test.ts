// Where vendors send an install's webhooks (spec part 1 §2.6 webhookUrl, §2.14 callbackUrl): from
// WEBHOOK_PUBLIC_URL only, never from the request's Host header; without it, no webhook address at all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CataloguePlatform, startCataloguePlatform } from '../catalogue/support.ts';
import { fetchWithHost, ok, publishEcho, SECRET_KEY_HEX } from './support.ts';

interface EchoAnswer {
  status: string;
  output: { envelope: { call: Record<string, unknown> } };
}

/** Installs the echo app as `w` with its secret stored; answers the install's id. */
async function echoInstall(platform: CataloguePlatform, token: string): Promise<string> {
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
    await platform.fetch('/app-installs/w/secrets/API_KEY', { method: 'POST', token, json: { value: 'k' } }),
  );
  return created.id;
}

/** The view and a test call's call object, both asked for with a forged Host header. */
async function seenThroughForgedHost(platform: CataloguePlatform, token: string) {
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

describe('without WEBHOOK_PUBLIC_URL', () => {
  let platform: CataloguePlatform;
  beforeAll(async () => {
    platform = await startCataloguePlatform({ SECRET_STORE_KEY: SECRET_KEY_HEX });
  }, 120_000);
  afterAll(async () => platform?.close());

  it('shows webhookUrl null and sends no callbackUrl, whatever Host the caller sends', async () => {
    const token = await platform.token({ tenant: 'no-public-url' });
    await echoInstall(platform, token);
    const seen = await seenThroughForgedHost(platform, token);
    expect(seen.webhookUrl).toBeNull();
    expect(seen.call).not.toHaveProperty('callbackUrl');
    expect(JSON.stringify(seen.call)).not.toContain('evil.example.com');
  });
});

describe('with WEBHOOK_PUBLIC_URL', () => {
  let platform: CataloguePlatform;
  beforeAll(async () => {
    platform = await startCataloguePlatform({
      SECRET_STORE_KEY: SECRET_KEY_HEX,
      WEBHOOK_PUBLIC_URL: 'https://hooks.example.com/base/',
    });
  }, 120_000);
  afterAll(async () => platform?.close());

  it('builds webhookUrl and callbackUrl from it alone, whatever Host the caller sends', async () => {
    const token = await platform.token({ tenant: 'public-url' });
    const id = await echoInstall(platform, token);
    const seen = await seenThroughForgedHost(platform, token);
    const expected = `https://hooks.example.com/base/webhooks/app-installs/${id}`;
    expect(seen.webhookUrl).toBe(expected);
    expect(seen.call.callbackUrl).toBe(expected);
  });
});
