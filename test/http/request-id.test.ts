// x-request-id (docs/api-conventions.md): a caller's acceptable value is kept, anything else gets a new UUID,
// and the id is echoed on every answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestIdFor } from '../../src/http/request-id.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { expectError, linesOf, UUID } from './expect.ts';

describe('requestIdFor', () => {
  it('keeps 1 to 128 characters of letters, digits, dot, underscore and hyphen', () => {
    for (const id of ['a', 'Z', '0', '.', '_', '-', 'req_1.A-b', 'x'.repeat(128)]) {
      expect(requestIdFor(id)).toBe(id);
    }
  });

  it('makes a new UUID for anything else', () => {
    const refused: (string | string[] | undefined)[] = [
      undefined,
      '',
      'x'.repeat(129),
      'has space',
      'slash/no',
      'colon:no',
      'üñí',
      'line\nbreak',
      ['a', 'b'],
    ];
    for (const header of refused) expect(requestIdFor(header)).toMatch(UUID);
  });

  it('makes a different UUID each time', () => {
    expect(requestIdFor(undefined)).not.toBe(requestIdFor(undefined));
  });
});

describe('x-request-id on the api', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform();
  });
  afterAll(async () => platform?.close());

  const idOf = async (
    headers: Record<string, string>,
    init: { token?: string | null; path?: string } = {},
  ) => {
    const response = await platform.fetch(init.path ?? '/tenants/me', { headers, token: init.token });
    await response.text();
    return { status: response.status, id: response.headers.get('x-request-id') };
  };

  it('echoes an acceptable caller value on a 2xx', async () => {
    expect(await idOf({ 'x-request-id': 'caller-Id_1.2' })).toEqual({ status: 200, id: 'caller-Id_1.2' });
    const longest = 'a'.repeat(128);
    expect(await idOf({ 'x-request-id': longest })).toEqual({ status: 200, id: longest });
  });

  it('echoes an acceptable caller value on a 4xx and in its body', async () => {
    const response = await platform.fetch('/tenants/me', {
      token: null,
      headers: { 'x-request-id': 'four-oh-one' },
    });
    expect((await expectError(response, 401, 'unauthorized')).requestId).toBe('four-oh-one');
  });

  it('replaces a value that is too long, has other characters or is empty with a new UUID', async () => {
    for (const value of ['a'.repeat(129), 'bad id', 'bad/id', 'semi;colon', '']) {
      const { status, id } = await idOf({ 'x-request-id': value });
      expect(status).toBe(200);
      expect(id, JSON.stringify(value)).toMatch(UUID);
    }
  });

  it('makes a UUID when the caller sends none, a new one per request', async () => {
    const first = await idOf({});
    const second = await idOf({});
    expect(first.id).toMatch(UUID);
    expect(second.id).toMatch(UUID);
    expect(first.id).not.toBe(second.id);
  });

  it('is on public routes and unknown routes too', async () => {
    expect(await idOf({ 'x-request-id': 'health-1' }, { token: null, path: '/health' })).toEqual({
      status: 200,
      id: 'health-1',
    });
    expect(await idOf({ 'x-request-id': 'nowhere-1' }, { token: null, path: '/nowhere' })).toEqual({
      status: 404,
      id: 'nowhere-1',
    });
  });

  it('is the requestId of the request’s log line and of the audit record it writes', async () => {
    const settings = await (await platform.fetch('/tenants/me/settings')).json();
    const put = await platform.fetch('/tenants/me/settings', {
      method: 'PUT',
      json: settings,
      headers: { 'x-request-id': 'audited-1' },
    });
    expect(put.status).toBe(200);
    expect(put.headers.get('x-request-id')).toBe('audited-1');
    await put.text();
    const lines = await linesOf(platform.logs, 'audited-1');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ method: 'PUT', statusCode: 200 });
    const events = await (await platform.fetch('/audit-events?action=tenant.settings.updated')).json();
    expect(events.items.map((event: { requestId: string }) => event.requestId)).toContain('audited-1');
  });
});
