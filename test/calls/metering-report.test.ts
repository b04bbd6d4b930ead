// The tenant's metering report against the real database (GET /app-installs/metering, meteringReport):
// rows are kept per install id and shown under the install's current name, across renames and removal.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { meterCall, nameMeteringRows } from '../../src/calls/metering.ts';
import { meteringReport } from '../../src/calls/metering-report.ts';
import { type Database, openDatabase } from '../../src/db/pool.ts';
import { appInstalls } from '../../src/installs/tables.ts';
import { ensureTenant } from '../../src/tenants/service.ts';
import { createTestDatabase } from '../support/database.ts';
import { insertInstall } from './support.ts';

let database: Database;
beforeAll(async () => {
  database = openDatabase(await createTestDatabase());
});
afterAll(async () => database?.close());

const NOW = new Date('2025-03-20T12:00:00Z');
const day = (d: number) => new Date(`2025-03-${String(d).padStart(2, '0')}T10:00:00Z`);

/** A tenant with an install `kyc` metered on the 14th, renamed `screening`, then metered on the 15th. */
async function renamedInstall(tenant: string) {
  const tenantId = (await ensureTenant(database.db, tenant)).tenant.id;
  const install = await insertInstall(database, tenantId, 'kyc');
  const call = (installName: string) => ({
    tenantId,
    installId: install.id,
    installName,
    appName: 'echo',
    action: 'echo',
    httpRequests: 1,
    charged: false,
  });
  await meterCall(database.db, call('kyc'), day(14));
  await database.db.update(appInstalls).set({ name: 'screening' }).where(eq(appInstalls.id, install.id));
  await meterCall(database.db, call('screening'), day(15));
  const report = (install?: string) =>
    meteringReport(database.db, { tenantId, install, from: '2025-03-01', withSpend: false }, NOW);
  return { tenantId, installId: install.id, report };
}

describe('meteringReport', () => {
  it('shows every day of a renamed install under its current name and finds them by it', async () => {
    const { installId, report } = await renamedInstall('report-renamed');
    const expected = [
      {
        installId,
        installName: 'screening',
        appName: 'echo',
        action: 'echo',
        day: '2025-03-15',
        calls: 1,
        httpRequests: 1,
        webhooks: 0,
        handoffs: 0,
      },
      {
        installId,
        installName: 'screening',
        appName: 'echo',
        action: 'echo',
        day: '2025-03-14',
        calls: 1,
        httpRequests: 1,
        webhooks: 0,
        handoffs: 0,
      },
    ];
    expect((await report()).items).toEqual(expected);
    expect((await report('screening')).items).toEqual(expected);
    expect((await report('kyc')).items).toEqual([]);
  });

  it('keeps a removed install’s rows under the name it last had, apart from a new install of that name', async () => {
    const { tenantId, installId, report } = await renamedInstall('report-removed');
    await database.db.transaction(async (tx) => {
      await nameMeteringRows(tx, installId, 'screening');
      await tx.delete(appInstalls).where(eq(appInstalls.id, installId));
    });
    const successor = await insertInstall(database, tenantId, 'screening');
    await meterCall(
      database.db,
      {
        tenantId,
        installId: successor.id,
        installName: 'screening',
        appName: 'echo',
        action: 'echo',
        httpRequests: 0,
        charged: false,
      },
      day(16),
    );
    const items = (await report('screening')).items;
    expect(items.map((item) => [item.installId, item.installName, item.day])).toEqual([
      [successor.id, 'screening', '2025-03-16'],
      [installId, 'screening', '2025-03-15'],
      [installId, 'screening', '2025-03-14'],
    ]);
  });

  it('shows nothing of another tenant', async () => {
    await renamedInstall('report-owner');
    const other = (await ensureTenant(database.db, 'report-other')).tenant.id;
    const report = await meteringReport(
      database.db,
      { tenantId: other, install: 'screening', from: '2025-03-01', withSpend: false },
      NOW,
    );
    expect(report.items).toEqual([]);
  });
});
