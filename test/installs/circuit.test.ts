// Circuit settings and reset through the real api (docs/installs.md "Circuit settings"; threshold 1 to
// 100, open time 5 to 3600 s).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CataloguePlatform, startCataloguePlatform } from '../catalogue/support.ts';
import { errorOf, ok, publishEcho } from './support.ts';

let platform: CataloguePlatform;
beforeAll(async () => {
  platform = await startCataloguePlatform({
    APP_CIRCUIT_FAILURE_THRESHOLD: '7',
    APP_CIRCUIT_OPEN_SECONDS: '45',
  });
}, 120_000);
afterAll(async () => platform?.close());

const as = (tenant: string) => platform.token({ tenant, user: 'ada' });
const call = (path: string, token: string, method = 'GET', json?: unknown) =>
  platform.fetch(path, { method, token, json });
const configure = (token: string, name: string, json: unknown) =>
  call(`/app-installs/${name}/circuit`, token, 'PUT', json);

interface Circuit {
  state: string;
  failures: number;
  since: string | null;
  settings: { failureThreshold: number | null; openSeconds: number | null } | null;
  defaults: { failureThreshold: number; openSeconds: number };
}

async function auditOf(token: string, action: string) {
  const body = await ok<{ items: { resource: { id: string }; data: Record<string, unknown> }[] }>(
    await call(`/audit-events?action=${action}`, token),
  );
  return body.items;
}

async function withInstall(tenant: string, name = 'kyc') {
  const token = await as(tenant);
  const v = await publishEcho(platform, token, `${tenant}-app`);
  const created = await ok<{ id: string; circuit: Circuit }>(
    await call('/app-installs', token, 'POST', {
      name,
      versionId: v.id,
      enabled: false,
      approveHosts: ['api.vendor.test'],
    }),
    201,
  );
  return { token, id: created.id, circuit: created.circuit };
}

const circuitOf = async (token: string, name = 'kyc') =>
  (await ok<{ circuit: Circuit }>(await call(`/app-installs/${name}`, token))).circuit;

describe('circuit settings', () => {
  it('sets the install’s own settings, shows them in the view, and null goes back to the deployment’s', async () => {
    const { token, id, circuit } = await withInstall('circ-set');
    expect(circuit).toEqual({
      state: 'closed',
      failures: 0,
      since: null,
      settings: null,
      defaults: { failureThreshold: 7, openSeconds: 45 },
    });
    expect(await ok(await configure(token, 'kyc', { failureThreshold: 3, openSeconds: 120 }))).toEqual({
      failureThreshold: 3,
      openSeconds: 120,
    });
    expect(await circuitOf(token)).toMatchObject({
      settings: { failureThreshold: 3, openSeconds: 120 },
      defaults: { failureThreshold: 7, openSeconds: 45 },
    });
    // The bounds of both ranges are in range.
    await ok(await configure(token, 'kyc', { failureThreshold: 100, openSeconds: 5 }));
    await ok(await configure(token, 'kyc', { failureThreshold: 1, openSeconds: 3600 }));
    // One field null takes the deployment's value for it.
    expect(await ok(await configure(token, 'kyc', { failureThreshold: null, openSeconds: 60 }))).toEqual({
      failureThreshold: null,
      openSeconds: 60,
    });
    expect((await circuitOf(token)).settings).toEqual({ failureThreshold: null, openSeconds: 60 });
    // Both null: the deployment's defaults.
    await ok(await configure(token, 'kyc', { failureThreshold: null, openSeconds: null }));
    expect(await circuitOf(token)).toMatchObject({
      settings: null,
      defaults: { failureThreshold: 7, openSeconds: 45 },
    });

    const audits = (await auditOf(token, 'app.circuit.configured')).filter((a) => a.resource.id === id);
    expect(audits).toHaveLength(5);
    expect(audits.map((a) => a.data)).toContainEqual(
      expect.objectContaining({
        name: 'kyc',
        before: { failureThreshold: null, openSeconds: null },
        after: { failureThreshold: 3, openSeconds: 120 },
      }),
    );
    expect(audits.map((a) => a.data)).toContainEqual(
      expect.objectContaining({
        before: { failureThreshold: null, openSeconds: 60 },
        after: { failureThreshold: null, openSeconds: null },
      }),
    );
  });

  it('refuses settings out of range, missing or of the wrong type with 400 validation_error', async () => {
    const { token } = await withInstall('circ-range');
    for (const [body, field] of [
      [{ failureThreshold: 0, openSeconds: 30 }, 'failureThreshold'],
      [{ failureThreshold: 101, openSeconds: 30 }, 'failureThreshold'],
      [{ failureThreshold: 2.5, openSeconds: 30 }, 'failureThreshold'],
      [{ failureThreshold: 5, openSeconds: 4 }, 'openSeconds'],
      [{ failureThreshold: 5, openSeconds: 3601 }, 'openSeconds'],
      [{ failureThreshold: 5, openSeconds: 'thirty' }, 'openSeconds'],
      [{ failureThreshold: 5 }, 'openSeconds'],
      [{ openSeconds: 30 }, 'failureThreshold'],
    ] as const) {
      const error = await errorOf(await configure(token, 'kyc', body), 400);
      expect(error.code, JSON.stringify(body)).toBe('validation_error');
      const paths = (error.details?.issues as { path: string }[]).map((i) => i.path);
      expect(paths.join(' '), JSON.stringify(body)).toContain(field);
    }
    const extra = await errorOf(
      await configure(token, 'kyc', { failureThreshold: 5, openSeconds: 30, halfOpen: 1 }),
      400,
    );
    expect(extra.code).toBe('validation_error');
    expect((await circuitOf(token)).settings).toBeNull();
  });

  it('resets a circuit (closed today) and audits it', async () => {
    const { token, id } = await withInstall('circ-reset');
    const reset = await ok<Circuit>(await call('/app-installs/kyc/circuit/reset', token, 'POST'));
    expect(reset).toEqual({
      state: 'closed',
      failures: 0,
      since: null,
      settings: null,
      defaults: { failureThreshold: 7, openSeconds: 45 },
    });
    const [audit] = await auditOf(token, 'app.circuit.reset');
    expect(audit).toMatchObject({
      resource: { id },
      data: { name: 'kyc', previousState: 'closed', previousFailures: 0 },
    });
  });

  it('answers 404 unknown_install for another tenant’s install and needs apps:write', async () => {
    const { token } = await withInstall('circ-owner');
    const stranger = await as('circ-stranger');
    for (const [method, path, json] of [
      ['PUT', '/app-installs/kyc/circuit', { failureThreshold: 3, openSeconds: 30 }],
      ['POST', '/app-installs/kyc/circuit/reset', undefined],
    ] as const) {
      expect((await errorOf(await call(path, stranger, method, json), 404)).code).toBe('unknown_install');
    }
    const reader = await platform.token({ tenant: 'circ-owner', roles: ['analyst'] });
    for (const refused of [
      await configure(reader, 'kyc', { failureThreshold: 3, openSeconds: 30 }),
      await call('/app-installs/kyc/circuit/reset', reader, 'POST'),
    ]) {
      expect(await errorOf(refused, 403)).toMatchObject({
        code: 'forbidden',
        details: { permission: 'apps:write' },
      });
    }
    expect((await circuitOf(token)).settings).toBeNull();
    expect(await auditOf(token, 'app.circuit.')).toEqual([]);
  });
});
