import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(async () => platform?.close());

describe('GET /tenants/me', () => {
  it('answers the caller tenant with the retention settings', async () => {
    const response = await platform.fetch('/tenants/me');
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toEqual({
      id: await platform.tenantId('acme'),
      name: 'acme',
      createdAt: expect.any(String),
      retention: { appCallbackDays: 90, submissionEventDays: 90 },
    });
  });
});

describe('tenant settings', () => {
  const settings = {
    approvals: { required: true, requiredFor: ['app'], fourEyes: false },
    collection: { flowUrl: 'https://collect.example.com' },
  };

  it('starts with defaults: no approvals required, four-eyes on, no flow URL', async () => {
    const response = await platform.fetch('/tenants/me/settings', {
      token: await platform.token({ tenant: 'fresh' }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      approvals: { required: false, requiredFor: ['app', 'definitions'], fourEyes: true },
      collection: { flowUrl: null },
    });
  });

  it('replaces the settings, reads them back and audits before and after in the trail', async () => {
    const token = await platform.token({ tenant: 'saver', user: 'grace' });
    const put = await platform.fetch('/tenants/me/settings', { method: 'PUT', token, json: settings });
    expect(put.status).toBe(200);
    expect(await put.json()).toEqual(settings);
    expect(await (await platform.fetch('/tenants/me/settings', { token })).json()).toEqual(settings);

    const audit = await (await platform.fetch('/audit-events?action=tenant.', { token })).json();
    expect(audit.items).toHaveLength(1);
    expect(audit.items[0]).toMatchObject({
      action: 'tenant.settings.updated',
      actor: { type: 'user', id: 'user:grace', name: 'grace' },
      resource: { type: 'tenant', id: await platform.tenantId('saver') },
      data: { before: { approvals: { required: false } }, after: settings },
      requestId: put.headers.get('x-request-id'),
    });
  });

  it.each([
    ['unset (every area)', { required: true, fourEyes: true }],
    ['the spec’s app', { required: true, requiredFor: ['app'], fourEyes: true }],
    ['the older spelling apps', { required: true, requiredFor: ['apps', 'definitions'], fourEyes: true }],
  ])('accepts requiredFor %s and reads it back as saved', async (_name, approvals) => {
    const token = await platform.token({ tenant: 'areas' });
    const body = { approvals, collection: { flowUrl: null } };
    const put = await platform.fetch('/tenants/me/settings', { method: 'PUT', token, json: body });
    expect(put.status).toBe(200);
    expect(await put.json()).toEqual(body);
    expect(await (await platform.fetch('/tenants/me/settings', { token })).json()).toEqual(body);
  });

  it('keeps one tenant’s settings away from another', async () => {
    await platform.fetch('/tenants/me/settings', {
      method: 'PUT',
      token: await platform.token({ tenant: 'one' }),
      json: settings,
    });
    const other = await platform.fetch('/tenants/me/settings', {
      token: await platform.token({ tenant: 'two' }),
    });
    expect((await other.json()).approvals.required).toBe(false);
  });

  it('refuses an analyst (tenants:settings) and changes nothing', async () => {
    const token = await platform.token({ tenant: 'guarded', roles: ['analyst'] });
    const put = await platform.fetch('/tenants/me/settings', { method: 'PUT', token, json: settings });
    expect(put.status).toBe(403);
    expect((await put.json()).error.code).toBe('forbidden');
    const read = await platform.fetch('/tenants/me/settings', {
      token: await platform.token({ tenant: 'guarded' }),
    });
    expect((await read.json()).approvals.required).toBe(false);
  });

  it.each([
    [{ ...settings, collection: { flowUrl: 'ftp://collect.example.com' } }, '/collection/flowUrl'],
    [
      { ...settings, approvals: { ...settings.approvals, requiredFor: ['everything'] } },
      '/approvals/requiredFor/0',
    ],
    [{ approvals: settings.approvals }, '/collection'],
    [
      { ...settings, approvals: { ...settings.approvals, requiredFor: ['app', 'app'] } },
      '/approvals/requiredFor',
    ],
  ])('refuses invalid settings %# at the path at fault, writing nothing', async (body, path) => {
    const token = await platform.token({ tenant: 'strict' });
    const put = await platform.fetch('/tenants/me/settings', { method: 'PUT', token, json: body });
    expect(put.status).toBe(400);
    const error = (await put.json()).error;
    expect(error.code).toBe('validation_error');
    expect(error.details.issues.map((i: { path: string }) => i.path)).toContain(path);
    const audit = await (await platform.fetch('/audit-events', { token })).json();
    expect(audit.total).toBe(0);
  });
});
