// Automatic upgrades through the real api and PostgreSQL (docs/upgrades.md): a compatible release applied
// by the sweep (audit, notification, view), hosts dropped, a move adding hosts or capabilities held as a
// change with origin auto_upgrade (without approval settings), its approval (automatic false, and the
// install moved at once after the decision) and its rejection (declined, not asked again).
import { beforeAll, describe, expect, it } from 'vitest';
import type { ChangeCalls } from '../installs/changes-support.ts';
import { ok } from '../installs/support.ts';
import { type InstallView, notes, optIn, upgradeSuite, VENDOR } from './support.ts';

let api: ChangeCalls;
let ada: string;
let tenantId: string;
const suite = upgradeSuite('ups');
const { release, view, sweepApp, upgradedAudits } = suite;
beforeAll(() => {
  ({ api, admin: ada, tenantId } = suite);
});

const NOTHING_ADDED = { hostsAdded: [], hostsRemoved: [], needsAdded: [], handlesAdded: [] };
const NO_DETAILS = { issues: [], missingSecrets: [], missingActions: [] };

describe('a compatible release', () => {
  it('is applied by the sweep: version, upgradedFromVersionId, app.install.upgraded, app_upgraded', async () => {
    const first = await release.publish({ name: 'up-move', version: '1.0.0' });
    const mover = await optIn(api, ada, 'mover', first['1.0.0'] as string);
    expect(mover.upgrade).toEqual({
      target: null,
      rollback: false,
      ...NOTHING_ADDED,
      waitingFor: null,
      ...NO_DETAILS,
    });
    await ok(
      await api.install(ada, {
        name: 'manual',
        versionId: first['1.0.0'],
        enabled: false,
        approveHosts: [VENDOR],
      }),
      201,
    );
    const more = await release.publish(
      ...['1.0.1', '1.1.0', '1.2.0-beta.1', '2.0.0'].map((version) => ({ name: 'up-move', version })),
    );
    // The view says what the next sweep does: move to the highest release of the same major.
    expect((await view('mover')).upgrade).toEqual({
      target: { id: more['1.1.0'], version: '1.1.0' },
      rollback: false,
      ...NOTHING_ADDED,
      waitingFor: null,
      ...NO_DETAILS,
    });
    expect((await view('manual')).upgrade).toBeUndefined();

    const report = await sweepApp('up-move');
    expect(report).toEqual({
      upgraded: [
        {
          installId: mover.id,
          tenantId,
          name: 'mover',
          appName: 'up-move',
          fromVersion: '1.0.0',
          toVersion: '1.1.0',
          toVersionId: more['1.1.0'],
        },
      ],
      rolledBack: [],
      held: [],
      waiting: [],
      failed: [],
    });
    const moved = await view('mover');
    expect(moved).toMatchObject({
      versionId: more['1.1.0'],
      upgradedFromVersionId: first['1.0.0'],
      hosts: [VENDOR],
      upgrade: { target: null, waitingFor: null },
    });
    expect((await view('manual')).versionId).toBe(first['1.0.0']);
    expect(await upgradedAudits(mover.id)).toEqual([
      expect.objectContaining({
        actor: { type: 'system', id: 'system:auto-upgrade', name: 'automatic upgrade' },
        data: {
          name: 'mover',
          appName: 'up-move',
          fromVersionId: first['1.0.0'],
          fromVersion: '1.0.0',
          toVersionId: more['1.1.0'],
          toVersion: '1.1.0',
          automatic: true,
          rollback: false,
          hostsRemoved: [],
        },
      }),
    ]);
    const writer = await api.holder('ups', 'wren', ['apps:write']);
    const told = (await notes(api, writer, 'app_upgraded')).filter((n) => n.data.name === 'mover');
    expect(told.map((n) => n.data)).toEqual([
      {
        name: 'mover',
        appName: 'up-move',
        fromVersionId: first['1.0.0'],
        fromVersion: '1.0.0',
        toVersionId: more['1.1.0'],
        toVersion: '1.1.0',
        automatic: true,
        rollback: false,
        hostsRemoved: [],
      },
    ]);
    const reader = await api.holder('ups', 'rory', ['apps:read']);
    expect(await notes(api, reader, 'app_upgraded')).toEqual([]);
    // Nothing left to move: the next sweep writes nothing.
    expect((await sweepApp('up-move')).upgraded).toEqual([]);
    expect(await upgradedAudits(mover.id)).toHaveLength(1);
  });

  it('drops the hosts the target no longer calls', async () => {
    const old = 'old.vendor.test';
    const first = await release.publish({
      name: 'up-hosts',
      version: '1.0.0',
      manifest: { hosts: [VENDOR, old] },
    });
    const install = await optIn(api, ada, 'hosts', first['1.0.0'] as string, { approveHosts: [VENDOR, old] });
    expect(install.hosts).toEqual([VENDOR, old]);
    const next = await release.publish({ name: 'up-hosts', version: '1.0.1' });
    expect((await view('hosts')).upgrade).toMatchObject({ hostsRemoved: [old], waitingFor: null });
    expect((await sweepApp('up-hosts')).upgraded).toHaveLength(1);
    expect(await view('hosts')).toMatchObject({ versionId: next['1.0.1'], hosts: [VENDOR] });
    const [audit] = await upgradedAudits(install.id);
    expect(audit?.data.hostsRemoved).toEqual([old]);
  });
});

describe('a move adding hosts or capabilities', () => {
  it('opens a change with origin auto_upgrade though the tenant requires no approvals; approving moves it (automatic false)', async () => {
    const first = await release.publish({ name: 'up-held', version: '1.0.0' });
    const install = await optIn(api, ada, 'held', first['1.0.0'] as string);
    const status = 'status.vendor.test';
    const next = await release.publish({
      name: 'up-held',
      version: '1.1.0',
      manifest: { hosts: [VENDOR, status] },
    });
    const report = await sweepApp('up-held');
    expect(report.upgraded).toEqual([]);
    expect(report.held).toEqual([
      expect.objectContaining({ installId: install.id, toVersion: '1.1.0', rollback: false }),
    ]);
    const waiting = await view('held');
    expect(waiting.versionId).toBe(first['1.0.0']);
    expect(waiting.pendingChange).toMatchObject({
      id: report.held[0]?.changeId,
      origin: 'auto_upgrade',
      versionId: next['1.1.0'],
      hosts: [VENDOR, status],
      hostsAdded: [status],
      requestedBy: 'system:auto-upgrade',
      approvalSettings: expect.objectContaining({ required: false }),
      newInstall: false,
    });
    expect(waiting.upgrade).toMatchObject({
      target: { id: next['1.1.0'], version: '1.1.0' },
      hostsAdded: [status],
      waitingFor: 'approval',
    });
    // The app.install.change.requested event names the version it moves from and the target.
    const requested = await ok<{ items: { data: Record<string, unknown> }[] }>(
      await api.call('/audit-events?action=app.install.change.requested', ada),
    );
    expect(
      requested.items.find((item) => item.data.changeId === report.held[0]?.changeId)?.data,
    ).toMatchObject({
      origin: 'auto_upgrade',
      fromVersion: '1.0.0',
      version: '1.1.0',
      versionId: next['1.1.0'],
    });
    // Another sweep asks nothing again.
    expect((await sweepApp('up-held')).waiting).toEqual([
      expect.objectContaining({ installId: install.id, waitingFor: 'approval' }),
    ]);
    expect((await api.list(ada, '?install=held')).items).toHaveLength(1);
    const writer = await api.holder('ups', 'wren', ['apps:write']);
    expect(
      (await notes(api, writer, 'install_change_pending')).filter((n) => n.data.name === 'held'),
    ).toHaveLength(1);
    const publisher = await api.holder('ups', 'pia', ['apps:publish']);
    expect((await notes(api, publisher, 'approval_requested')).filter((n) => n.data.name === 'held')).toEqual(
      [expect.objectContaining({ data: expect.objectContaining({ requestedBy: 'automatic upgrade' }) })],
    );

    await ok(await api.approve(ada, 'held', report.held[0]?.changeId as string));
    expect(await view('held')).toMatchObject({
      versionId: next['1.1.0'],
      upgradedFromVersionId: first['1.0.0'],
      hosts: [VENDOR, status],
      pendingChange: null,
    });
    expect(await upgradedAudits(install.id)).toEqual([
      expect.objectContaining({
        actor: { type: 'user', id: 'user:ada', name: 'ada' },
        data: {
          name: 'held',
          appName: 'up-held',
          fromVersionId: first['1.0.0'],
          fromVersion: '1.0.0',
          toVersionId: next['1.1.0'],
          toVersion: '1.1.0',
          automatic: false,
          rollback: false,
          hostsRemoved: [],
        },
      }),
    ]);
    expect(
      (await notes(api, writer, 'app_upgraded')).filter((n) => n.data.name === 'held').map((n) => n.data),
    ).toEqual([expect.objectContaining({ changeId: report.held[0]?.changeId, automatic: false })]);
  });

  it('once rejected is declined for that version and not asked again; a later version is asked', async () => {
    const first = await release.publish({ name: 'up-decline', version: '1.0.0' });
    const install = await optIn(api, ada, 'decline', first['1.0.0'] as string);
    const handoff = { handles: { webhook: true, handoff: true } };
    const next = await release.publish({ name: 'up-decline', version: '1.1.0', manifest: handoff });
    const { held } = await sweepApp('up-decline');
    expect(held).toHaveLength(1);
    expect((await view('decline')).pendingChange).toMatchObject({ handlesAdded: ['handoff'] });
    await ok(await api.reject(ada, 'decline', held[0]?.changeId as string, { comment: 'not now' }));
    const declined = await view('decline');
    expect(declined.pendingChange).toBeNull();
    expect(declined.upgrade).toMatchObject({
      target: { id: next['1.1.0'], version: '1.1.0' },
      handlesAdded: ['handoff'],
      waitingFor: 'declined',
    });
    expect(await sweepApp('up-decline')).toMatchObject({
      held: [],
      waiting: [expect.objectContaining({ installId: install.id, waitingFor: 'declined' })],
    });
    expect((await api.list(ada, '?install=decline')).items).toEqual([]);
    const attention = await ok<{ items: { resource: { id: string }; title: string }[] }>(
      await api.call('/attention', ada),
    );
    expect(attention.items.filter((i) => i.resource.id === install.id).map((i) => i.title)).toEqual([
      'Install decline runs up-decline 1.0.0; the upgrade to 1.1.0 was declined and is not asked again',
    ]);
    const later = await release.publish({ name: 'up-decline', version: '1.2.0', manifest: handoff });
    const asked = await sweepApp('up-decline');
    expect(asked.held).toEqual([expect.objectContaining({ installId: install.id, toVersion: '1.2.0' })]);
    expect((await view('decline')).pendingChange?.versionId).toBe(later['1.2.0']);
  });

  it('withdrawn by an administrator is declined too; superseded by a save it is asked again', async () => {
    const first = await release.publish({ name: 'up-withdraw', version: '1.0.0' });
    await optIn(api, ada, 'withdrawn', first['1.0.0'] as string);
    const wider = { hosts: [VENDOR, 'status.vendor.test'] };
    await release.publish({ name: 'up-withdraw', version: '1.1.0', manifest: wider });
    const [asked] = (await sweepApp('up-withdraw')).held;
    await ok(await api.withdraw(ada, 'withdrawn', asked?.changeId as string));
    expect((await view('withdrawn')).upgrade).toMatchObject({ waitingFor: 'declined' });
    expect((await sweepApp('up-withdraw')).held).toEqual([]);

    const later = await release.publish({ name: 'up-withdraw', version: '1.2.0', manifest: wider });
    const [again] = (await sweepApp('up-withdraw')).held;
    expect(again?.toVersion).toBe('1.2.0');
    // A save supersedes the platform's change; the move right after it asks again.
    const saved = await ok<InstallView>(
      await api.save(ada, 'withdrawn', { versionId: first['1.0.0'], enabled: false, config: { note: 'x' } }),
    );
    expect(saved.pendingChange).toMatchObject({ origin: 'auto_upgrade', versionId: later['1.2.0'] });
    expect(saved.pendingChange?.id).not.toBe(again?.changeId);
  });
});
