// Automatic upgrades through the real api and PostgreSQL (docs/upgrades.md): a compatible release applied
// by the sweep (audit, notification, view), hosts dropped, a move adding hosts or capabilities held as a
// change with origin auto_upgrade (without approval settings), its approval (automatic false) and its
// rejection (declined, not asked again), moves waiting for secrets, config or actions, a saved change
// holding the move, and the install moved at once after a save, a secret or a decision.
import { beforeAll, describe, expect, it } from 'vitest';
import type { CataloguePlatform } from '../catalogue/support.ts';
import { type ChangeCalls, changesPlatform } from '../installs/changes-support.ts';
import { ok } from '../installs/support.ts';
import { callStep, definitionCalls, ruleSetCalling, workflowCalling } from '../runs/support.ts';
import {
  asynchronous,
  baseManifest,
  type InstallView,
  notes,
  optIn,
  platformRelease,
  sweep,
  VENDOR,
} from './support.ts';

let platform: CataloguePlatform;
let api: ChangeCalls;
changesPlatform((started, calls) => {
  platform = started;
  api = calls;
});
const release = platformRelease(() => platform);

const TENANT = 'ups';
let ada: string;
let tenantId: string;
beforeAll(async () => {
  ada = await api.admin(TENANT);
  tenantId = await platform.tenantId(TENANT);
});

const sweepApp = (appName: string) => sweep(platform.database, platform.config, { appName });
const view = async (name: string) => ok<InstallView>(await api.call(`/app-installs/${name}`, ada));

interface AuditItem {
  actor: { type: string; id: string; name: string | null };
  resource: { type: string; id: string };
  data: Record<string, unknown>;
}
async function auditsOf(installId: string, action: string): Promise<AuditItem[]> {
  const page = await ok<{ items: AuditItem[] }>(
    await api.call(`/audit-events?action=${action}&limit=100`, ada),
  );
  return page.items.filter((item) => item.resource.id === installId);
}

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
    expect(await auditsOf(mover.id, 'app.install.upgraded')).toEqual([
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
    const writer = await api.holder(TENANT, 'wren', ['apps:write']);
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
    const reader = await api.holder(TENANT, 'rory', ['apps:read']);
    expect(await notes(api, reader, 'app_upgraded')).toEqual([]);
    // Nothing left to move: the next sweep writes nothing.
    expect((await sweepApp('up-move')).upgraded).toEqual([]);
    expect(await auditsOf(mover.id, 'app.install.upgraded')).toHaveLength(1);
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
    const [audit] = await auditsOf(install.id, 'app.install.upgraded');
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
    // Another sweep asks nothing again.
    expect((await sweepApp('up-held')).waiting).toEqual([
      expect.objectContaining({ installId: install.id, waitingFor: 'approval' }),
    ]);
    expect((await api.list(ada, '?install=held')).items).toHaveLength(1);
    const writer = await api.holder(TENANT, 'wren', ['apps:write']);
    expect(
      (await notes(api, writer, 'install_change_pending')).filter((n) => n.data.name === 'held'),
    ).toHaveLength(1);
    const publisher = await api.holder(TENANT, 'pia', ['apps:publish']);
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
    expect(await auditsOf(install.id, 'app.install.upgraded')).toEqual([
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
});

describe('a move waiting for an administrator', () => {
  it('waits for a required secret, and moves at once when it is stored', async () => {
    const first = await release.publish({ name: 'up-secret', version: '1.0.0' });
    const install = await optIn(api, ada, 'secret', first['1.0.0'] as string);
    const next = await release.publish({
      name: 'up-secret',
      version: '1.1.0',
      manifest: { secrets: [{ name: 'API_KEY' }, { name: 'SIGNING_KEY' }] },
    });
    expect((await sweepApp('up-secret')).waiting).toEqual([
      expect.objectContaining({ installId: install.id, waitingFor: 'secrets', toVersion: '1.1.0' }),
    ]);
    expect((await view('secret')).upgrade).toMatchObject({
      waitingFor: 'secrets',
      missingSecrets: ['SIGNING_KEY'],
    });
    const attention = await ok<{ items: { resource: { id: string }; title: string }[] }>(
      await api.call('/attention', ada),
    );
    expect(attention.items.filter((i) => i.resource.id === install.id)).toHaveLength(1);
    // The target declares it, so it may be stored; the store's answer shows the install moved.
    const stored = await ok<InstallView>(
      await api.call('/app-installs/secret/secrets/SIGNING_KEY', ada, 'POST', { value: 'signing-key-value' }),
    );
    expect(stored).toMatchObject({ versionId: next['1.1.0'], upgradedFromVersionId: first['1.0.0'] });
    expect(stored.upgrade).toMatchObject({ target: null, waitingFor: null });
    expect(await auditsOf(install.id, 'app.install.upgraded')).toHaveLength(1);
  });

  it('waits for a config the target accepts (with its issues), and moves at once after a save that fixes it', async () => {
    const first = await release.publish({ name: 'up-config', version: '1.0.0' });
    await optIn(api, ada, 'config', first['1.0.0'] as string);
    const strict = baseManifest('up-config', '1.1.0');
    const next = await release.publish({
      name: 'up-config',
      version: '1.1.0',
      manifest: { configSchema: { ...strict.configSchema, required: ['region'] } },
    });
    const waiting = (await view('config')).upgrade;
    expect(waiting).toMatchObject({ waitingFor: 'config' });
    expect(waiting?.issues).toEqual([{ path: '/region', message: expect.any(String) }]);
    expect((await sweepApp('up-config')).waiting).toEqual([
      expect.objectContaining({ name: 'config', waitingFor: 'config' }),
    ]);
    // A save of the install with a config both versions accept: the answer shows it moved.
    const saved = await ok<InstallView>(
      await api.save(ada, 'config', { versionId: first['1.0.0'], enabled: true, config: { region: 'eu' } }),
    );
    expect(saved).toMatchObject({ versionId: next['1.1.0'], config: { region: 'eu' }, enabled: true });
  });

  it('waits for actions a published workflow or rule set calls that the target lacks or makes asynchronous', async () => {
    const first = await release.publish({ name: 'up-acts', version: '1.0.0' });
    for (const name of ['acts-flow', 'acts-rule', 'acts-step'])
      await optIn(api, ada, name, first['1.0.0'] as string);
    const calls = definitionCalls(
      () => platform,
      () => ({}),
    );
    await calls.published(ada, 'workflow', 'flow-lookup', {
      steps: [
        callStep('acts-step', 'screen'),
        { ...callStep('acts-flow', 'lookup'), id: 'two', outputKey: 'two' },
      ],
    });
    await calls.published(ada, 'rule_set', 'rules-screen', ruleSetCalling('acts-rule', 'screen'));
    // 1.1.0: screen answers through a webhook, lookup is gone.
    const next = await release.publish({
      name: 'up-acts',
      version: '1.1.0',
      manifest: { actions: [asynchronous('screen'), asynchronous('verify')] },
    });
    const report = await sweepApp('up-acts');
    expect(report.upgraded.map((i) => i.name)).toEqual(['acts-step']);
    expect((await view('acts-step')).versionId).toBe(next['1.1.0']);
    expect((await view('acts-flow')).upgrade).toMatchObject({
      waitingFor: 'actions',
      missingActions: [
        {
          action: 'lookup',
          reason: 'absent',
          calledBy: [{ kind: 'workflow', key: 'flow-lookup', version: 1 }],
        },
      ],
    });
    expect((await view('acts-rule')).upgrade).toMatchObject({
      waitingFor: 'actions',
      missingActions: [
        {
          action: 'screen',
          reason: 'asynchronous',
          calledBy: [{ kind: 'rule_set', key: 'rules-screen', version: 1 }],
        },
      ],
    });
    expect(report.waiting.map((i) => [i.name, i.waitingFor]).sort()).toEqual([
      ['acts-flow', 'actions'],
      ['acts-rule', 'actions'],
    ]);
    // Once the workflow no longer calls lookup, the next sweep moves acts-flow.
    await ok(await calls.save(ada, 'workflow', 'flow-lookup', workflowCalling('acts-flow', 'screen')));
    await ok(await calls.publish(ada, 'workflow', 'flow-lookup'));
    expect((await sweepApp('up-acts')).upgraded.map((i) => i.name)).toEqual(['acts-flow']);
  });
});

describe('a saved change awaiting approval', () => {
  it('holds the move; once withdrawn, the install moves at once', async () => {
    const token = await api.admin('ups-approvals');
    const first = await release.publish({ name: 'up-saved', version: '1.0.0' });
    const install = await optIn(api, token, 'saved', first['1.0.0'] as string);
    await api.requireApprovals(token, false);
    const { change } = await api.held(
      await api.save(token, 'saved', {
        versionId: first['1.0.0'],
        enabled: true,
        config: { baseUrl: 'https://one.vendor.example' },
        approveHosts: ['one.vendor.example'],
      }),
    );
    const next = await release.publish({ name: 'up-saved', version: '1.0.1' });
    expect((await sweepApp('up-saved')).waiting).toEqual([
      expect.objectContaining({ installId: install.id, waitingFor: 'approval' }),
    ]);
    const held = await api.installOf(token, 'saved');
    expect(held).toMatchObject({
      versionId: first['1.0.0'],
      pendingChange: { id: change.id, origin: 'save' },
    });
    // Waiting on a change that is listed itself: not listed again as a waiting upgrade.
    const attention = await ok<{ items: { kind: string; resource: { id: string } }[] }>(
      await api.call('/attention', token),
    );
    expect(attention.items.map((i) => i.kind)).toEqual(['install_change_pending']);
    await ok(await api.withdraw(token, 'saved', change.id));
    expect(await api.installOf(token, 'saved')).toMatchObject({
      versionId: next['1.0.1'],
      pendingChange: null,
    });
  });
});
