// Rollbacks (docs/upgrades.md "Rollback"): an opted-in install whose version is withdrawn or blocked is
// moved by the sweep to the highest published unblocked release of its range, lower if need be (rollback
// true), or left where it is when there is none; a save may move it back to the version the move left
// (upgradedFromVersionId) with autoUpgrade off in the same save, even once withdrawn, never once blocked.
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { appBlocks, appVersions } from '../../src/catalogue/tables.ts';
import type { CataloguePlatform } from '../catalogue/support.ts';
import { expectError } from '../http/expect.ts';
import type { ChangeCalls } from '../installs/changes-support.ts';
import { ok } from '../installs/support.ts';
import { type InstallView, optIn, upgradeSuite } from './support.ts';

let platform: CataloguePlatform;
let api: ChangeCalls;
let ada: string;
let tenantId: string;
const suite = upgradeSuite('rollbacks');
const { release, view, sweepApp } = suite;
beforeAll(() => {
  ({ platform, api, admin: ada, tenantId } = suite);
});
const save = (name: string, versionId: string, more: Record<string, unknown> = {}) =>
  api.save(ada, name, { versionId, enabled: false, ...more });

async function block(versionId: string): Promise<string> {
  const [version] = await platform.database.db
    .select({ sha256: appVersions.sha256 })
    .from(appVersions)
    .where(eq(appVersions.id, versionId));
  const [row] = await platform.database.db
    .insert(appBlocks)
    .values({ sha256: version?.sha256 as string, reason: 'leaks applicant data', createdBy: 'operator' })
    .returning();
  return row?.id as string;
}

const upgradedAudits = async (installId: string) =>
  (await suite.upgradedAudits(installId)).map((item) => item.data);

describe('a withdrawn version', () => {
  it('is left for the highest release of the range below it (rollback true); a save moves back to it with autoUpgrade off', async () => {
    const ids = await release.publish(
      ...['1.0.0', '1.1.0', '1.2.0', '2.0.0'].map((version) => ({ name: 'rb-withdrawn', version })),
    );
    const install = await optIn(api, ada, 'withdrawn', ids['1.2.0'] as string);
    expect(install.upgrade).toMatchObject({ target: null, rollback: false });
    await release.withdraw('rb-withdrawn', '1.2.0');
    expect((await view('withdrawn')).upgrade).toMatchObject({
      target: { id: ids['1.1.0'], version: '1.1.0' },
      rollback: true,
      waitingFor: null,
    });
    const report = await sweepApp('rb-withdrawn');
    expect(report).toMatchObject({ upgraded: [], held: [], waiting: [], failed: [] });
    expect(report.rolledBack).toEqual([
      {
        installId: install.id,
        tenantId,
        name: 'withdrawn',
        appName: 'rb-withdrawn',
        fromVersion: '1.2.0',
        toVersion: '1.1.0',
        toVersionId: ids['1.1.0'],
      },
    ]);
    expect(await view('withdrawn')).toMatchObject({
      versionId: ids['1.1.0'],
      upgradedFromVersionId: ids['1.2.0'],
      upgrade: { target: null, rollback: false, waitingFor: null },
    });
    expect(await upgradedAudits(install.id)).toEqual([
      {
        name: 'withdrawn',
        appName: 'rb-withdrawn',
        fromVersionId: ids['1.2.0'],
        fromVersion: '1.2.0',
        toVersionId: ids['1.1.0'],
        toVersion: '1.1.0',
        automatic: true,
        rollback: true,
        hostsRemoved: [],
      },
    ]);

    // Back to the withdrawn version it left: only with autoUpgrade off in the same save.
    const kept = await expectError(await save('withdrawn', ids['1.2.0'] as string), 400, 'validation_error');
    expect(kept.details).toEqual({
      issues: [{ path: '/versionId', message: expect.stringContaining('autoUpgrade off') }],
    });
    // Another withdrawn version is no version a save may ask for.
    await release.withdraw('rb-withdrawn', '1.0.0');
    await expectError(
      await save('withdrawn', ids['1.0.0'] as string, { autoUpgrade: 'off' }),
      400,
      'validation_error',
    );
    const back = await ok<InstallView>(
      await save('withdrawn', ids['1.2.0'] as string, { autoUpgrade: 'off' }),
    );
    expect(back).toMatchObject({ versionId: ids['1.2.0'], autoUpgrade: 'off' });
    expect(back.upgrade).toBeUndefined();
    // Off: no sweep moves it again.
    expect((await sweepApp('rb-withdrawn')).rolledBack).toEqual([]);
    expect((await view('withdrawn')).versionId).toBe(ids['1.2.0']);
  });
});

describe('a blocked version', () => {
  it('is left for a lower release (rollback true); moving back to it is refused while blocked', async () => {
    const ids = await release.publish(
      ...['1.0.0', '1.1.0'].map((version) => ({ name: 'rb-blocked', version })),
    );
    const install = await optIn(api, ada, 'blocked', ids['1.1.0'] as string);
    const blockId = await block(ids['1.1.0'] as string);
    const report = await sweepApp('rb-blocked');
    expect(report.rolledBack).toEqual([
      expect.objectContaining({ installId: install.id, fromVersion: '1.1.0', toVersion: '1.0.0' }),
    ]);
    expect(await view('blocked')).toMatchObject({
      versionId: ids['1.0.0'],
      upgradedFromVersionId: ids['1.1.0'],
    });
    expect(await upgradedAudits(install.id)).toEqual([
      expect.objectContaining({ fromVersion: '1.1.0', toVersion: '1.0.0', automatic: true, rollback: true }),
    ]);
    // The blocked version is no target: the install stays where it is.
    expect((await sweepApp('rb-blocked')).upgraded).toEqual([]);
    const refused = await expectError(
      await save('blocked', ids['1.1.0'] as string, { autoUpgrade: 'off' }),
      409,
      'app_blocked',
    );
    expect(refused.details).toMatchObject({ reason: 'leaks applicant data' });
    expect((await view('blocked')).versionId).toBe(ids['1.0.0']);
    // Once the block is lifted the next sweep moves it up again.
    await platform.database.db
      .update(appBlocks)
      .set({ liftedAt: new Date(), liftedBy: 'operator' })
      .where(eq(appBlocks.id, blockId));
    expect((await sweepApp('rb-blocked')).upgraded).toEqual([
      expect.objectContaining({ installId: install.id, fromVersion: '1.0.0', toVersion: '1.1.0' }),
    ]);
  });

  it('stays when the whole app is blocked: no release of the range is left', async () => {
    const ids = await release.publish(...['1.0.0', '1.0.1'].map((version) => ({ name: 'rb-app', version })));
    const install = await optIn(api, ada, 'whole-app', ids['1.0.0'] as string);
    // Storing its secret moved it at once.
    expect(install.versionId).toBe(ids['1.0.1']);
    await platform.database.db
      .insert(appBlocks)
      .values({ appName: 'rb-app', publisher: 'platform', reason: 'vendor gone', createdBy: 'operator' });
    expect(await sweepApp('rb-app')).toEqual({
      upgraded: [],
      rolledBack: [],
      held: [],
      waiting: [],
      failed: [],
    });
    expect(await view('whole-app')).toMatchObject({
      versionId: ids['1.0.1'],
      upgrade: { target: null, rollback: false, waitingFor: null },
    });
  });
});
