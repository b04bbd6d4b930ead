// JSON bodies through the real api: an empty body sent as application/json is no body (routes without
// one, or with an optional one, accept it), and JSON nested past 64 levels is refused before any code
// walks it, at the JSON Pointer where the depth is passed, leaving nothing written.
import { describe, expect, it } from 'vitest';
import type { CataloguePlatform } from '../catalogue/support.ts';
import { type ChangeCalls, changesPlatform } from '../installs/changes-support.ts';
import { ok, publishEcho } from '../installs/support.ts';
import { expectError } from './expect.ts';

let platform: CataloguePlatform;
let api: ChangeCalls;
changesPlatform((started, calls) => {
  platform = started;
  api = calls;
});

/** A request whose body is the given text, sent as JSON. */
const rawJson = (path: string, token: string, method: string, body: string) =>
  platform.fetch(path, { method, token, body, headers: { 'content-type': 'application/json' } });
/** A request whose body is empty but says it is JSON (as some clients send every request). */
const emptyJson = (path: string, token: string, method: string) => rawJson(path, token, method, '');
/** The issues of a body refused as too deep. */
const refusedIssues = async (path: string, token: string, method: string, body: string) =>
  (await expectError(await rawJson(path, token, method, body), 400, 'validation_error')).details;

async function withInstall(tenant: string) {
  const token = await api.admin(tenant);
  const v = await publishEcho(platform, token, `${tenant}-app`);
  await ok(
    await api.install(token, {
      name: 'kyc',
      versionId: v.id,
      enabled: false,
      approveHosts: ['api.vendor.test'],
    }),
    201,
  );
  await ok(
    await api.call('/app-installs/kyc/secrets/API_KEY', token, 'POST', { value: 'sk-test-0123456789' }),
  );
  return { token, versionId: v.id };
}

describe('an empty body sent as application/json', () => {
  it('is no body for routes that take none: circuit reset, alias and cache delete, withdraw, install delete', async () => {
    const { token, versionId } = await withInstall('empty-body');
    const reset = await ok<{ state: string }>(
      await emptyJson('/app-installs/kyc/circuit/reset', token, 'POST'),
    );
    expect(reset).toMatchObject({ state: 'closed', failures: 0 });

    await ok(await api.call('/app-installs/kyc/rename', token, 'POST', { name: 'screening' }));
    const alias = await ok<{ aliases: string[] }>(
      await emptyJson('/app-installs/screening/aliases/kyc', token, 'DELETE'),
    );
    expect(alias.aliases).toEqual([]);

    const cache = await ok<Record<string, unknown>>(
      await emptyJson('/app-installs/screening/cache', token, 'DELETE'),
    );
    expect(cache).toMatchObject({ entries: 0 });

    await api.requireApprovals(token, false);
    const { change } = await api.held(
      await api.install(token, { name: 'later', versionId, approveHosts: ['api.vendor.test'] }),
    );
    const withdrawn = await ok<{ decision: string }>(
      await emptyJson(`/app-installs/later/changes/${change.id}/withdraw`, token, 'POST'),
    );
    expect(withdrawn).toMatchObject({ id: change.id, decision: 'withdrawn' });

    const removed = await emptyJson('/app-installs/screening', token, 'DELETE');
    expect(removed.status).toBe(204);
    expect(await removed.text()).toBe('');
    await expectError(await api.call('/app-installs/screening', token), 404, 'unknown_install');
  });

  it('is no decision body for approve and reject of an install change, nor is no body at all', async () => {
    const { token, versionId } = await withInstall('empty-decision');
    await api.requireApprovals(token, false);
    const first = await api.held(
      await api.install(token, { name: 'first', versionId, approveHosts: ['api.vendor.test'] }),
    );
    const approved = await ok<{ decision: string; comment: string | null }>(
      await emptyJson(`/app-installs/first/changes/${first.change.id}/approve`, token, 'POST'),
    );
    expect(approved).toMatchObject({ id: first.change.id, decision: 'approved', comment: null });

    const second = await api.held(
      await api.install(token, { name: 'second', versionId, approveHosts: ['api.vendor.test'] }),
    );
    const rejected = await ok<{ decision: string }>(
      await platform.fetch(`/app-installs/second/changes/${second.change.id}/reject`, {
        method: 'POST',
        token,
      }),
    );
    expect(rejected).toMatchObject({ id: second.change.id, decision: 'rejected', comment: null });
  });

  it('is still refused by a route that needs a body: 400 validation_error at /', async () => {
    const { token } = await withInstall('empty-required');
    const error = await expectError(
      await emptyJson('/app-installs/kyc/circuit', token, 'PUT'),
      400,
      'validation_error',
    );
    expect(error.details).toEqual({ issues: [{ path: '/', message: expect.any(String) }] });
    await expectError(await emptyJson('/app-installs/kyc/rename', token, 'POST'), 400, 'validation_error');
  });
});

/** `levels` arrays nested inside one another. */
const nestedArrays = (levels: number): unknown => {
  let value: unknown = [];
  for (let i = 1; i < levels; i += 1) value = [value];
  return value;
};
/** JSON text of `levels` objects nested under `k` (built as text: JSON.stringify would recurse). */
const nestedObjectsText = (levels: number) => `${'{"k":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;
const pointer = (...tokens: string[]) => `/${tokens.join('/')}`;

describe('JSON nested deeper than 64 levels', () => {
  it('a config of arrays nested 5000 levels: 400 at the pointer of the 65th level, install unchanged', async () => {
    const { token } = await withInstall('deep-arrays');
    const before = await ok(await api.call('/app-installs/kyc', token));
    const body = `{"config":{"note":${'['.repeat(5000)}${']'.repeat(5000)}}}`;
    // The body is level 1, config 2, note's outer array 3: the array at 65 is note's 62nd item down.
    expect(await refusedIssues('/app-installs/kyc', token, 'PUT', body)).toEqual({
      issues: [
        {
          path: pointer('config', 'note', ...Array(62).fill('0')),
          message: 'nests objects and arrays more than 64 levels deep',
        },
      ],
    });
    expect(await ok(await api.call('/app-installs/kyc', token))).toEqual(before);
  });

  it('a config of objects nested 3000 levels is never saved', async () => {
    const { token } = await withInstall('deep-objects');
    const before = await ok(await api.call('/app-installs/kyc', token));
    const body = `{"config":${nestedObjectsText(3000)}}`;
    expect(await refusedIssues('/app-installs/kyc', token, 'PUT', body)).toEqual({
      issues: [{ path: pointer('config', ...Array(63).fill('k')), message: expect.any(String) }],
    });
    expect(await ok(await api.call('/app-installs/kyc', token))).toEqual(before);
    const test = await ok<{ status: string }>(
      await api.call('/app-installs/kyc/test', token, 'POST', { action: 'echo', input: { a: 1 } }),
    );
    // Its calls still work: nothing deep reached the install.
    expect(test.status).toBe('success');
  });

  it('a test input nested 5000 levels: 400 at /input/…', async () => {
    const { token } = await withInstall('deep-input');
    const body = `{"action":"echo","input":{"a":${'['.repeat(5000)}${']'.repeat(5000)}}}`;
    expect(await refusedIssues('/app-installs/kyc/test', token, 'POST', body)).toEqual({
      issues: [{ path: pointer('input', 'a', ...Array(62).fill('0')), message: expect.any(String) }],
    });
  });

  it('lets 64 levels through to the module, whose answer may nest 64 levels and no more', async () => {
    const { token } = await withInstall('deep-ok');
    // echo answers { status, output: { envelope: { input } } }: three levels above the input's own.
    const test = (levels: number) =>
      api.call('/app-installs/kyc/test', token, 'POST', {
        action: 'echo',
        input: { a: nestedArrays(levels) },
      });
    // Body 1, input 2, /input/a 3 to 64: accepted; the answer nests 66 levels.
    const deep = await ok<{ status: string; error: unknown }>(await test(62));
    expect(deep).toMatchObject({
      status: 'error',
      error: {
        code: 'app_call_failed',
        reason: 'bad_output',
        message: expect.stringContaining('nests objects and arrays more than 64 levels deep'),
      },
    });
    // The answer nests 64 levels.
    const fits = await ok<{ status: string; output: { envelope: { input: unknown } } }>(await test(60));
    expect(fits.status).toBe('success');
    expect(fits.output.envelope.input).toEqual({ a: nestedArrays(60) });
  });
});
