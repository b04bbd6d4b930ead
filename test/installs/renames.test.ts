// Renames and aliases through the real api (docs/installs.md "Renames and aliases").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CataloguePlatform, startCataloguePlatform } from '../catalogue/support.ts';
import { errorOf, ok, publishEcho, SECRET_KEY_HEX } from './support.ts';

let platform: CataloguePlatform;
beforeAll(async () => {
  platform = await startCataloguePlatform({
    SECRET_STORE_KEY: SECRET_KEY_HEX,
    WEBHOOK_PUBLIC_URL: 'https://hooks.example.com',
  });
}, 120_000);
afterAll(async () => platform?.close());

const as = (tenant: string, user = 'ada') => platform.token({ tenant, user });
const call = (path: string, token: string, method = 'GET', json?: unknown) =>
  platform.fetch(path, { method, token, json });
const rename = (token: string, name: string, body: Record<string, unknown>) =>
  call(`/app-installs/${name}/rename`, token, 'POST', body);

interface View {
  id: string;
  name: string;
  aliases: string[];
  storedSecrets: string[];
  webhookUrl: string | null;
}
interface Renamed {
  install: View;
  alias: string | null;
  definitions: unknown[];
  skipped: unknown[];
}

async function auditOf(token: string, action: string) {
  const body = await ok<{ items: { resource: { id: string }; data: Record<string, unknown> }[] }>(
    await call(`/audit-events?action=${action}`, token),
  );
  return body.items;
}

/** A tenant with an app and installs of the given names. */
async function tenantWith(tenant: string, names: string[]) {
  const token = await as(tenant);
  const v = await publishEcho(platform, token, `${tenant}-app`);
  const ids: Record<string, string> = {};
  for (const name of names) {
    const created = await ok<View>(
      await call('/app-installs', token, 'POST', {
        name,
        versionId: v.id,
        enabled: false,
        approveHosts: ['api.vendor.test'],
      }),
      201,
    );
    ids[name] = created.id;
  }
  return { token, ids };
}

describe('renames', () => {
  it('renames keeping the id, secrets and webhook URL; the former name stays an alias and answers renamedTo', async () => {
    const { token, ids } = await tenantWith('ren-keep', ['kyc']);
    await ok(await call('/app-installs/kyc/secrets/API_KEY', token, 'POST', { value: 'hush-hush-value' }));
    const before = await ok<View>(await call('/app-installs/kyc', token));
    const renamed = await ok<Renamed>(await rename(token, 'kyc', { name: 'screening' }));
    expect(renamed).toEqual({
      install: expect.objectContaining({ id: ids.kyc, name: 'screening', aliases: ['kyc'] }),
      alias: 'kyc',
      definitions: [],
      skipped: [],
    });
    expect(renamed.install.storedSecrets).toEqual(['API_KEY']);
    expect(renamed.install.webhookUrl).toBe(`https://hooks.example.com/webhooks/app-installs/${ids.kyc}`);
    expect(renamed.install.webhookUrl).toBe(before.webhookUrl);
    expect((await ok<View>(await call('/app-installs/screening', token))).aliases).toEqual(['kyc']);

    // The routes take the current name: the former one answers 404 with renamedTo.
    for (const [method, path, json] of [
      ['GET', '/app-installs/kyc', undefined],
      ['PUT', '/app-installs/kyc', { versionId: before.id, enabled: false }],
      ['DELETE', '/app-installs/kyc', undefined],
      ['POST', '/app-installs/kyc/secrets/API_KEY', { value: 'sk-test-value' }],
      ['DELETE', '/app-installs/kyc/secrets/API_KEY', undefined],
      ['POST', '/app-installs/kyc/rename', { name: 'other' }],
      ['PUT', '/app-installs/kyc/circuit', { failureThreshold: null, openSeconds: null }],
      ['POST', '/app-installs/kyc/circuit/reset', undefined],
    ] as const) {
      const error = await errorOf(await call(path, token, method, json), 404);
      expect(error, `${method} ${path}`).toMatchObject({
        code: 'unknown_install',
        details: { renamedTo: 'screening' },
      });
    }
    // A name nothing ever had: no renamedTo.
    const none = await errorOf(await call('/app-installs/never', token), 404);
    expect(none.code).toBe('unknown_install');
    expect(none.details?.renamedTo).toBeUndefined();

    const [audit] = await auditOf(token, 'app.install.renamed');
    expect(audit).toMatchObject({
      resource: { id: ids.kyc },
      data: { name: 'screening', previousName: 'kyc', keepAlias: true, alias: 'kyc', aliasTakenBack: false },
    });
    expect(JSON.stringify(audit)).not.toContain('hush');
  });

  it('renames without an alias: the former name is free at once', async () => {
    const { token, ids } = await tenantWith('ren-drop', ['kyc']);
    const renamed = await ok<Renamed>(await rename(token, 'kyc', { name: 'aml', keepAlias: false }));
    expect(renamed).toMatchObject({ alias: null, install: { id: ids.kyc, name: 'aml', aliases: [] } });
    const gone = await errorOf(await call('/app-installs/kyc', token), 404);
    expect(gone.details?.renamedTo).toBeUndefined();
    const [audit] = await auditOf(token, 'app.install.renamed');
    expect(audit?.data).toMatchObject({ previousName: 'kyc', keepAlias: false, alias: null });
    // Free: a new install may take it.
    const v = (await ok<{ versionId: string }>(await call('/app-installs/aml', token))).versionId;
    await ok(
      await call('/app-installs', token, 'POST', {
        name: 'kyc',
        versionId: v,
        enabled: false,
        approveHosts: ['api.vendor.test'],
      }),
      201,
    );
  });

  it('keeps at most 5 aliases (alias_limit_reached), unless the rename drops the former name', async () => {
    const { token } = await tenantWith('ren-limit', ['n0']);
    for (let i = 1; i <= 5; i++) await ok(await rename(token, `n${i - 1}`, { name: `n${i}` }));
    expect((await ok<View>(await call('/app-installs/n5', token))).aliases).toEqual([
      'n0',
      'n1',
      'n2',
      'n3',
      'n4',
    ]);
    const limit = await errorOf(await rename(token, 'n5', { name: 'n6' }), 409);
    expect(limit).toMatchObject({ code: 'alias_limit_reached', details: { max: 5 } });
    expect((await ok<View>(await call('/app-installs/n5', token))).name).toBe('n5');
    // Taking an alias back frees a slot for the current name.
    const back = await ok<Renamed>(await rename(token, 'n5', { name: 'n2' }));
    expect(back.install.aliases).toEqual(['n0', 'n1', 'n3', 'n4', 'n5']);
    // keepAlias false needs no slot.
    await ok(await rename(token, 'n2', { name: 'n9', keepAlias: false }));
  });

  it('shares the namespace: another install’s name or alias is taken; one’s own alias is taken back', async () => {
    const { token, ids } = await tenantWith('ren-space', ['a', 'b']);
    await ok(await rename(token, 'b', { name: 'b2' }));
    const name = await errorOf(await rename(token, 'a', { name: 'b2' }), 409);
    expect(name).toMatchObject({ code: 'install_name_taken', details: { name: 'b2', aliasOf: null } });
    const alias = await errorOf(await rename(token, 'a', { name: 'b' }), 409);
    expect(alias).toMatchObject({ code: 'install_name_taken', details: { name: 'b', aliasOf: 'b2' } });
    const own = await errorOf(await rename(token, 'a', { name: 'a' }), 409);
    expect(own.code).toBe('install_name_taken');
    // A create may not take an alias either.
    const v = (await ok<{ versionId: string }>(await call('/app-installs/a', token))).versionId;
    const create = await errorOf(
      await call('/app-installs', token, 'POST', { name: 'b', versionId: v, enabled: false }),
      409,
    );
    expect(create).toMatchObject({ code: 'install_name_taken', details: { aliasOf: 'b2' } });

    // Renaming back to one's own alias takes it back; the name it leaves becomes the alias.
    const back = await ok<Renamed>(await rename(token, 'b2', { name: 'b' }));
    expect(back).toMatchObject({ alias: 'b2', install: { id: ids.b, name: 'b', aliases: ['b2'] } });
    const [audit] = await auditOf(token, 'app.install.renamed');
    expect(audit?.data).toMatchObject({ name: 'b', previousName: 'b2', aliasTakenBack: true });

    // Reserved and malformed names are refused; the rewrite is validated.
    for (const body of [{ name: 'health' }, { name: 'Bad_Name' }, { name: 'c', rewrite: 'everything' }]) {
      expect((await errorOf(await rename(token, 'a', body), 400)).code).toBe('validation_error');
    }
    // rewrite is accepted; no definitions exist yet, so nothing is rewritten.
    const rewritten = await ok<Renamed>(await rename(token, 'a', { name: 'c', rewrite: 'publish' }));
    expect(rewritten).toMatchObject({ alias: 'a', definitions: [], skipped: [] });
  });

  it('checks permissions and the tenant', async () => {
    const { token } = await tenantWith('ren-perm', ['p']);
    const reader = await platform.token({ tenant: 'ren-perm', roles: ['analyst'] });
    expect((await rename(reader, 'p', { name: 'q' })).status).toBe(403);
    expect((await call('/app-installs/p/aliases/x', reader, 'DELETE')).status).toBe(403);
    // rewrite drafts needs definitions:write.
    const appsOnly = await platform.token({
      tenant: 'ren-perm',
      roles: [],
      permissions: ['apps:read', 'apps:write'],
    });
    const denied = await errorOf(await rename(appsOnly, 'p', { name: 'q', rewrite: 'drafts' }), 403);
    expect(denied).toMatchObject({ code: 'forbidden', details: { permission: 'definitions:write' } });
    await ok(await rename(appsOnly, 'p', { name: 'q' }));
    const stranger = await as('ren-stranger');
    const error = await errorOf(await rename(stranger, 'q', { name: 'r' }), 404);
    expect(error.code).toBe('unknown_install');
    expect(error.details?.renamedTo).toBeUndefined();
    expect((await errorOf(await call('/app-installs/q/aliases/p', stranger, 'DELETE'), 404)).code).toBe(
      'unknown_install',
    );
    await ok(await call('/app-installs/q', token));
  });
});

describe('metering across a rename', () => {
  interface Report {
    items: { installId: string; installName: string; calls: number }[];
  }
  const meteringOf = async (token: string, install: string) =>
    (await ok<Report>(await call(`/app-installs/metering?install=${install}`, token))).items;

  it('shows the install’s calls under its current name, found by it, and by its last name once removed', async () => {
    const { token, ids } = await tenantWith('ren-meter', ['kyc']);
    await ok(await call('/app-installs/kyc/secrets/API_KEY', token, 'POST', { value: 'sk-hush-hush' }));
    await ok(await call('/app-installs/kyc/test', token, 'POST', { action: 'echo', input: {} }));
    await ok(await rename(token, 'kyc', { name: 'screening', keepAlias: false }));
    const metered = [{ installId: ids.kyc, installName: 'screening', calls: 1 }];
    expect(await meteringOf(token, 'screening')).toMatchObject(metered);
    expect(await meteringOf(token, 'kyc')).toEqual([]);
    await ok(await call('/app-installs/screening', token, 'DELETE'), 204);
    expect(await meteringOf(token, 'screening')).toMatchObject(metered);
  });
});

describe('removing an alias', () => {
  it('frees the former name, is audited, and answers 404 for an alias the install does not keep', async () => {
    const { token, ids } = await tenantWith('alias-rm', ['old', 'other']);
    await ok(await rename(token, 'old', { name: 'new' }));
    await ok(await rename(token, 'other', { name: 'other2' }));
    // Only the install's own aliases, through its current name.
    expect((await errorOf(await call('/app-installs/new/aliases/other', token, 'DELETE'), 404)).code).toBe(
      'not_found',
    );
    expect(
      (await errorOf(await call('/app-installs/old/aliases/old', token, 'DELETE'), 404)).details,
    ).toMatchObject({ renamedTo: 'new' });

    const removed = await ok<View>(await call('/app-installs/new/aliases/old?force=true', token, 'DELETE'));
    expect(removed).toMatchObject({ id: ids.old, name: 'new', aliases: [] });
    const gone = await errorOf(await call('/app-installs/old', token), 404);
    expect(gone.details?.renamedTo).toBeUndefined();
    const [audit] = await auditOf(token, 'app.install.alias.removed');
    expect(audit).toMatchObject({
      resource: { id: ids.old },
      data: { name: 'new', alias: 'old', force: true },
    });

    // The name is free: another install may be renamed to it.
    const taken = await ok<Renamed>(await rename(token, 'other2', { name: 'old', keepAlias: false }));
    expect(taken.install).toMatchObject({ id: ids.other, name: 'old', aliases: ['other'] });
  });
});
