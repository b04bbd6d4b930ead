// Automatic upgrades waiting for an administrator (docs/upgrades.md "The decision"), through the real api
// and PostgreSQL: a required secret (moved at once once it is stored), a config the target refuses (moved at
// once after a save that fixes it), actions published workflows and rule sets call that the target lacks
// or makes asynchronous, and a saved change awaiting approval (moved at once once it is withdrawn).
import { beforeAll, describe, expect, it } from 'vitest';
import type { CataloguePlatform } from '../catalogue/support.ts';
import type { ChangeCalls } from '../installs/changes-support.ts';
import { ok } from '../installs/support.ts';
import { callStep, definitionCalls, ruleSetCalling, workflowCalling } from '../runs/support.ts';
import { asynchronous, baseManifest, type InstallView, optIn, upgradeSuite } from './support.ts';

let platform: CataloguePlatform;
let api: ChangeCalls;
let ada: string;
const suite = upgradeSuite('ups-waits');
const { release, view, sweepApp, upgradedAudits } = suite;
beforeAll(() => {
  ({ platform, api, admin: ada } = suite);
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
    expect(await upgradedAudits(install.id)).toHaveLength(1);
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
