// `ops apps block`, `apps unblock` and `apps blocks` through the real command on the platform's database
// (docs/operations.md "ops apps block"): a block stops a test call at once, writes the tenant's trail, its
// notification and the outbound event, and rolls the installs that upgrade automatically back through
// the upgrades' sweep; a lift frees the calls again (its refusals: apps-block-refusals.test.ts).
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { appVersions } from '../../src/catalogue/tables.ts';
import { fanoutPass } from '../../src/outbound-webhooks/fan-out/fan-out-store.ts';
import { webhookDeliveries } from '../../src/outbound-webhooks/tables.ts';
import { appModule } from '../catalogue/support.ts';
import { errorOf, ok } from '../installs/support.ts';
import { addEndpoint, deliveriesOf } from '../outbound-webhooks/rows.ts';
import { until } from '../runs/worker-process.ts';
import { appsSuite, column, expectNoRawControls, HOSTILE, HOSTILE_ESCAPED } from './apps-support.ts';

const suite = appsSuite();

interface Outcome {
  block: Record<string, unknown> & { id: string };
  installs: { id: string; tenant: string; name: string }[];
  rollback: {
    rolledBack: { installId: string; fromVersion: string; toVersion: string; toVersionId: string }[];
    waiting: unknown[];
    held: unknown[];
    upgraded: unknown[];
    failed: unknown[];
  } | null;
}

async function notificationsOf(tenant: string) {
  const response = await suite.platform.fetch('/notifications', { token: await suite.as(tenant) });
  return (await ok<{ items: { kind: string; resource: unknown; data: unknown }[] }>(response)).items;
}

describe('ops apps block --sha256 and unblock', () => {
  it('stops a test call at once, writes both trails, notifies the tenant and raises the event; a lift frees it', async () => {
    const version = await suite.published('blk-a', 'blocky');
    const installId = await suite.install('blk-a', 'screen', version.id);
    const tenantId = await suite.tenantId('blk-a');
    const endpoint = await addEndpoint(suite.platform.database, tenantId, 'https://hooks.example.com/in', [
      'app.module.blocked',
    ]);
    // A pass before the block sets the trail reader's cursor below it.
    await fanoutPass(suite.platform.database);
    expect((await ok<{ status: string }>(await suite.testCall('blk-a', 'screen'))).status).toBe('success');

    const outcome = await suite.json<Outcome>([
      'apps',
      'block',
      '--sha256',
      version.sha256.toUpperCase(),
      '--reason',
      'exfiltrates data',
      '--by',
      'olga',
    ]);
    expect(outcome).toEqual({
      block: {
        id: expect.any(String),
        scope: 'module',
        sha256: version.sha256,
        publisher: null,
        tenantId: null,
        tenant: null,
        appName: null,
        reason: 'exfiltrates data',
        createdBy: 'olga',
        createdAt: expect.any(String),
        liftedBy: null,
        liftedAt: null,
      },
      installs: [
        {
          id: installId,
          tenantId,
          tenant: 'blk-a',
          name: 'screen',
          appName: 'blocky',
          autoUpgrade: 'off',
          enabled: false,
          hosts: ['api.vendor.test'],
          versionId: version.id,
          version: '1.0.0',
          sha256: version.sha256,
        },
      ],
      rollback: null,
    });

    // Effective at its commit: the next call, and an upload of the same module, are refused.
    const refused = await errorOf(await suite.testCall('blk-a', 'screen'), 409);
    expect(refused).toMatchObject({
      code: 'app_blocked',
      details: { sha256: version.sha256, reason: 'exfiltrates data' },
    });

    const data = {
      name: 'screen',
      appName: 'blocky',
      versionId: version.id,
      version: '1.0.0',
      sha256: version.sha256,
      scope: 'module',
      reason: 'exfiltrates data',
    };
    const [tenantRow] = await suite.trail('blk-a', 'app.module.blocked');
    expect(tenantRow).toMatchObject({
      actorType: 'operator',
      actorId: 'olga',
      actorName: 'olga',
      resourceType: 'app_install',
      resourceId: installId,
    });
    expect(tenantRow?.data).toEqual(data);
    const instance = (await suite.trail(null, 'app.module.blocked')).find(
      (row) => row.resourceId === outcome.block.id,
    );
    expect(instance).toMatchObject({ actorType: 'operator', actorId: 'olga', resourceType: 'app_block' });
    expect(instance?.data).toEqual({
      blockId: outcome.block.id,
      scope: 'module',
      sha256: version.sha256,
      publisher: null,
      publisherTenantId: null,
      appName: null,
      reason: 'exfiltrates data',
      installs: 1,
      tenantIds: [tenantId],
    });
    expect((await notificationsOf('blk-a')).filter((n) => n.kind === 'app_blocked')).toEqual([
      expect.objectContaining({ resource: { type: 'app_install', id: installId }, data }),
    ]);

    // The outbound event follows from the tenant's row: one delivery of app.module.blocked with its data.
    const deliveries = await until('the trail reader delivering the event', async () => {
      await fanoutPass(suite.platform.database, { now: () => new Date(Date.now() + 11_000) });
      const rows = await deliveriesOf(suite.platform.database, endpoint.id);
      return rows.length > 0 ? rows : null;
    });
    expect(deliveries).toEqual([
      expect.objectContaining({ eventType: 'app.module.blocked', auditEventId: tenantRow?.id, tenantId }),
    ]);

    const lifted = await suite.json<Outcome>(['apps', 'unblock', outcome.block.id, '--by', 'olga']);
    expect(lifted.block).toMatchObject({
      id: outcome.block.id,
      liftedBy: 'olga',
      liftedAt: expect.any(String),
    });
    expect(lifted.installs.map((i) => i.id)).toEqual([installId]);
    expect((await ok<{ status: string }>(await suite.testCall('blk-a', 'screen'))).status).toBe('success');
    const [unblocked] = await suite.trail('blk-a', 'app.module.unblocked');
    expect(unblocked).toMatchObject({
      actorType: 'operator',
      resourceType: 'app_install',
      resourceId: installId,
    });
    expect(unblocked?.data).toEqual(data);
    expect(await suite.trail(null, 'app.module.unblocked')).toEqual([
      expect.objectContaining({ resourceType: 'app_block', resourceId: outcome.block.id }),
    ]);
    // A lift raises no notification and no event.
    expect((await notificationsOf('blk-a')).filter((n) => n.kind === 'app_blocked')).toHaveLength(1);
    await fanoutPass(suite.platform.database, { now: () => new Date(Date.now() + 11_000) });
    expect(await deliveriesOf(suite.platform.database, endpoint.id)).toHaveLength(1);
    await suite.platform.database.db
      .delete(webhookDeliveries)
      .where(eq(webhookDeliveries.endpointId, endpoint.id));
  });

  it('prints one line for a block and a lift, and lists blocks (unlifted, or --all) in a table', async () => {
    const version = await suite.published('blk-lines', 'liney');
    const set = await suite.run([
      'apps',
      'block',
      '--sha256',
      version.sha256,
      '--reason',
      'r',
      '--by',
      'olga',
    ]);
    expect(set.code).toBe(0);
    const [blockId] = /block ([0-9a-f-]{36})/.exec(set.stdout)?.slice(1) ?? [];
    expect(set.stdout).toBe(`blocked ${version.sha256} (block ${blockId}): 0 installs stopped\n`);

    const listed = await suite.run(['apps', 'blocks']);
    expect(listed.code).toBe(0);
    expect(listed.stdout.split('\n')[0]).toMatch(
      /^ID\s+SCOPE\s+TARGET\s+REASON\s+BY\s+AT\s+LIFTED\s+INSTALLS$/,
    );
    expect(column(listed.stdout, 'ID')).toContain(blockId);
    const row = listed.stdout.split('\n').find((line) => line.startsWith(blockId as string)) as string;
    expect(row).toMatch(
      new RegExp(`^${blockId}\\s+module\\s+${version.sha256}\\s+r\\s+olga\\s+\\S+\\s+-\\s+0$`),
    );

    const lift = await suite.run(['apps', 'unblock', blockId as string, '--by', 'olga']);
    expect(lift.stdout).toBe(`lifted block ${blockId} on ${version.sha256}: 0 installs concerned\n`);
    expect(column((await suite.run(['apps', 'blocks'])).stdout, 'ID')).not.toContain(blockId);
    const all = await suite.json<{ items: { id: string; liftedBy: string | null }[] }>([
      'apps',
      'blocks',
      '--all',
    ]);
    expect(all.items.find((b) => b.id === blockId)).toMatchObject({ liftedBy: 'olga' });
    const human = await suite.run(['apps', 'blocks', '--all']);
    expect(column(human.stdout, 'LIFTED')[column(human.stdout, 'ID').indexOf(blockId as string)]).toMatch(
      / by olga$/,
    );
  });
});

describe('ops apps block --app', () => {
  it('blocks every version of the platform app across tenants; an auto-upgrading install has nowhere to roll back to', async () => {
    const ids = await suite.platformApp('plat-blk', ['1.0.0', '1.1.0']);
    const plain = await suite.install('blk-p1', 'p1', ids.get('1.0.0') as string);
    const auto = await suite.install('blk-p2', 'p2', ids.get('1.1.0') as string, {
      autoUpgrade: 'compatible',
    });
    const outcome = await suite.json<Outcome>([
      'apps',
      'block',
      '--app',
      'plat-blk',
      '--platform',
      '--reason',
      'vendor breach',
      '--by',
      'olga',
    ]);
    expect(outcome.block).toMatchObject({
      scope: 'app',
      publisher: 'platform',
      appName: 'plat-blk',
      sha256: null,
    });
    expect(outcome.installs.map((i) => [i.tenant, i.name])).toEqual([
      ['blk-p1', 'p1'],
      ['blk-p2', 'p2'],
    ]);
    // Every version of its app is blocked: the sweep finds no release of the range to move to.
    expect(outcome.rollback).toEqual({ upgraded: [], rolledBack: [], held: [], waiting: [], failed: [] });
    for (const [tenant, id] of [
      ['blk-p1', plain],
      ['blk-p2', auto],
    ] as const) {
      const rows = await suite.trail(tenant, 'app.module.blocked');
      expect(rows.map((r) => [r.resourceId, (r.data as { scope: string }).scope])).toEqual([[id, 'app']]);
      expect(
        await errorOf(await suite.testCall(tenant, tenant === 'blk-p1' ? 'p1' : 'p2'), 409),
      ).toMatchObject({
        code: 'app_blocked',
        details: { reason: 'vendor breach' },
      });
    }
    // The instance record names both tenants: `ops audit --tenant` finds it under either.
    const audit = await suite.json<{ items: { action: string; resource: { id: string } }[] }>([
      'audit',
      '--tenant',
      'blk-p2',
      '--action',
      'app.module.',
    ]);
    expect(audit.items).toEqual([
      expect.objectContaining({
        action: 'app.module.blocked',
        resource: { type: 'app_block', id: outcome.block.id },
      }),
    ]);
    await suite.json(['apps', 'unblock', outcome.block.id, '--by', 'olga']);
  });

  it('a block of the version an auto-upgrading install runs rolls it back at once to the highest release left', async () => {
    const ids = await suite.platformApp('plat-rb', ['1.0.0', '1.1.0', '1.2.0']);
    const auto = await suite.install('rb-t', 'rb', ids.get('1.2.0') as string, { autoUpgrade: 'compatible' });
    const [sha256] = (
      await suite.platform.database.db
        .select({ sha256: appVersions.sha256 })
        .from(appVersions)
        .where(eq(appVersions.id, ids.get('1.2.0') as string))
    ).map((v) => v.sha256);
    const outcome = await suite.json<Outcome>([
      'apps',
      'block',
      '--sha256',
      sha256 as string,
      '--reason',
      'broken build',
      '--by',
      'olga',
    ]);
    expect(outcome.rollback?.rolledBack).toEqual([
      expect.objectContaining({
        installId: auto,
        fromVersion: '1.2.0',
        toVersion: '1.1.0',
        toVersionId: ids.get('1.1.0'),
      }),
    ]);
    const [upgraded] = await suite.trail('rb-t', 'app.install.upgraded');
    expect(upgraded?.data).toMatchObject({
      fromVersion: '1.2.0',
      toVersion: '1.1.0',
      automatic: true,
      rollback: true,
    });
    expect((await ok<{ status: string }>(await suite.testCall('rb-t', 'rb'))).status).toBe('success');
    const human = await suite.run(['apps', 'unblock', outcome.block.id, '--by', 'olga']);
    expect(human.code).toBe(0);
  });

  it("blocks a tenant's app by name (scope app), with progress on a terminal", async () => {
    const v1 = await suite.published('blk-t', 'tenant-app', '1.0.0');
    const v2 = await suite.published('blk-t', 'tenant-app', '1.1.0');
    await suite.install('blk-t', 'one', v1.id);
    await suite.install('blk-t', 'two', v2.id);
    const result = await suite.run(
      ['apps', 'block', '--app', 'tenant-app', '--tenant', 'blk-t', '--reason', 'pulled', '--by', 'olga'],
      { tty: true },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^blocked blk-t\/tenant-app \(block [0-9a-f-]{36}\): 2 installs stopped\n$/,
    );
    expect(result.stderr).toContain('blocking installs 2/2\n');
    const rows = await suite.trail('blk-t', 'app.module.blocked');
    expect(rows.map((r) => r.data)).toEqual([
      {
        name: 'one',
        appName: 'tenant-app',
        versionId: v1.id,
        version: '1.0.0',
        sha256: v1.sha256,
        scope: 'app',
        reason: 'pulled',
      },
      {
        name: 'two',
        appName: 'tenant-app',
        versionId: v2.id,
        version: '1.1.0',
        sha256: v2.sha256,
        scope: 'app',
        reason: 'pulled',
      },
    ]);
    // An upload of a new version of the blocked app is refused.
    const upload = await suite.platform.upload(
      await appModule('tenant-app', '2.0.0'),
      await suite.as('blk-t'),
    );
    expect((await errorOf(upload, 409)).code).toBe('app_blocked');
  });
});

describe('hostile text', () => {
  it('prints a reason and an operator name escaped in the blocks and list tables', async () => {
    const version = await suite.published('blk-hostile', 'hostile-app');
    await suite.json(['apps', 'block', '--sha256', version.sha256, '--reason', HOSTILE, '--by', HOSTILE]);
    const blocks = await suite.run(['apps', 'blocks']);
    expectNoRawControls(blocks.stdout);
    const row = blocks.stdout.split('\n').find((line) => line.includes(version.sha256)) as string;
    expect(row).toContain(`${HOSTILE_ESCAPED}  ${HOSTILE_ESCAPED}`);
    const list = await suite.run(['apps', 'list', '--tenant', 'blk-hostile']);
    expectNoRawControls(list.stdout);
    expect(list.stdout.trimEnd().split('\n')).toHaveLength(2);
    expect(column(list.stdout, 'BLOCK')).toEqual([`module: ${HOSTILE_ESCAPED}`]);
  });
});
