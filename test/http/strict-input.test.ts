// JSON bodies are validated as sent, never coerced; query strings still read numbers and booleans from
// text; an unknown query parameter is refused on every route. Each body below was accepted (coerced)
// by an OpenAPI fuzzer before; each must now be 400 validation_error at its path and write nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CataloguePlatform, startCataloguePlatform } from '../catalogue/support.ts';
import { ok, publishEcho, SECRET_KEY_HEX } from '../installs/support.ts';
import { expectError } from './expect.ts';

let platform: CataloguePlatform;
let token: string;
let versionId: string;
const SAVED = {
  approvals: { required: false, requiredFor: ['definitions'], fourEyes: false },
  collection: { flowUrl: null },
};

beforeAll(async () => {
  platform = await startCataloguePlatform({ SECRET_STORE_KEY: SECRET_KEY_HEX });
  token = await platform.token({ tenant: 'strict' });
  await ok(await platform.fetch('/tenants/me/settings', { method: 'PUT', token, json: SAVED }));
  versionId = (await publishEcho(platform, token, 'strict-app')).id;
  await ok(
    await platform.fetch('/app-installs', {
      method: 'POST',
      token,
      json: { name: 'kept', versionId, enabled: false, approveHosts: ['api.vendor.test'] },
    }),
    201,
  );
}, 120_000);
afterAll(async () => platform?.close());

const send = (path: string, method: string, json?: unknown) => platform.fetch(path, { method, token, json });

/** A refusal at exactly one path (with Ajv's own message when given, e.g. `must be boolean`). */
async function refusedAt(response: Response, path: string, message: string = expect.any(String)) {
  const error = await expectError(response, 400, 'validation_error');
  expect(error.details).toEqual({ issues: [{ path, message }] });
}

const installNames = async () =>
  (await ok<{ items: { name: string }[] }>(await send('/app-installs', 'GET'))).items.map((i) => i.name);

describe('PUT /tenants/me/settings takes booleans and arrays only as sent', () => {
  it.each([
    ['the string "true"', 'true'],
    ['the number 1', 1],
    ['null', null],
    ['an array holding true', [true]],
  ])('refuses %s as approvals.required', async (_name, value) => {
    const body = { ...SAVED, approvals: { ...SAVED.approvals, required: value } };
    await refusedAt(
      await send('/tenants/me/settings', 'PUT', body),
      '/approvals/required',
      'must be boolean',
    );
    expect(await ok(await send('/tenants/me/settings', 'GET'))).toEqual(SAVED);
  });

  it('refuses a string as requiredFor rather than wrapping it in an array', async () => {
    const body = { ...SAVED, approvals: { ...SAVED.approvals, requiredFor: 'app' } };
    await refusedAt(
      await send('/tenants/me/settings', 'PUT', body),
      '/approvals/requiredFor',
      'must be array',
    );
    expect(await ok(await send('/tenants/me/settings', 'GET'))).toEqual(SAVED);
  });
});

describe('secrets take a string only', () => {
  it.each([
    ['a number', 918273645501234],
    ['a boolean', false],
  ])('refuses %s as the value and stores nothing', async (_name, value) => {
    await refusedAt(
      await send('/app-installs/kept/secrets/API_KEY', 'POST', { value }),
      '/value',
      'must be string',
    );
    const install = await ok<{ storedSecrets: string[] }>(await send('/app-installs/kept', 'GET'));
    expect(install.storedSecrets).toEqual([]);
  });
});

describe('POST /app-installs takes its fields as typed', () => {
  it.each([
    ['"enabled":"false"', { enabled: 'false' }, '/enabled', 'must be boolean'],
    ['"approveHosts":"host"', { approveHosts: 'api.vendor.test' }, '/approveHosts', 'must be array'],
  ])('refuses %s and creates no install', async (_name, field, path, message) => {
    const body = { name: 'coerced', versionId, enabled: false, approveHosts: ['api.vendor.test'], ...field };
    await refusedAt(await send('/app-installs', 'POST', body), path, message);
    expect(await installNames()).toEqual(['kept']);
  });
});

describe('query strings', () => {
  it('still read numbers and booleans from text', async () => {
    const page = await ok<{ items: unknown[] }>(await send('/app-install-changes?limit=5&offset=0', 'GET'));
    expect(page.items).toEqual([]);
    const unread = await ok<{ items: unknown[] }>(await send('/notifications?unread=true&limit=5', 'GET'));
    expect(Array.isArray(unread.items)).toBe(true);
    await refusedAt(await send('/app-install-changes?limit=five', 'GET'), 'query.limit');
  });

  it('refuse an unknown parameter on /apps and /app-installs alike', async () => {
    await refusedAt(await send('/app-installs?bogus=1', 'GET'), 'query.bogus', 'unknown field');
    await refusedAt(await send('/apps?bogus=1', 'GET'), 'query.bogus', 'unknown field');
    const both = await expectError(await send('/apps?limit=1&bogus=1', 'GET'), 400, 'validation_error');
    expect(both.details).toEqual({
      issues: expect.arrayContaining([
        { path: 'query.limit', message: 'unknown field' },
        { path: 'query.bogus', message: 'unknown field' },
      ]),
    });
  });

  it('refuse any parameter on a route that takes none, public ones too', async () => {
    await refusedAt(await send('/tenants/me/settings?x=1', 'GET'), 'query.x');
    await refusedAt(await send('/app-installs/kept?expand=all', 'GET'), 'query.expand');
    await refusedAt(await platform.fetch('/health?probe=1', { token: null }), 'query.probe');
  });

  it('refuse a parameter on a write without writing', async () => {
    const body = { ...SAVED, approvals: { ...SAVED.approvals, required: true } };
    await refusedAt(await send('/tenants/me/settings?dryRun=true', 'PUT', body), 'query.dryRun');
    expect(await ok(await send('/tenants/me/settings', 'GET'))).toEqual(SAVED);
  });
});
