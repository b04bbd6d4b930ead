// Approvals of install saves through the real api (docs/install-changes.md "When a save waits",
// "Requests: event and notification"): saves held for approval, and their approval.
import { describe, expect, it } from 'vitest';
import type { CataloguePlatform } from '../catalogue/support.ts';
import { type ChangeCalls, changeModule, changesPlatform } from './changes-support.ts';
import { configurableModule, errorOf, ok, published } from './support.ts';

let platform: CataloguePlatform;
let api: ChangeCalls;
changesPlatform((started, calls) => {
  platform = started;
  api = calls;
});

const VENDOR = 'api.vendor.test';

describe('a new install under approvals', () => {
  it('waits stored, disabled and without hosts; approval brings it into service', async () => {
    const ada = await api.admin('new-wait');
    const grace = await api.admin('new-wait', 'grace');
    const v = await published(platform, ada, changeModule('wait-app', '1.0.0', { handoff: true }));
    await api.requireApprovals(ada);
    const config = { baseUrl: 'https://one.vendor.example' };
    const { install, change } = await api.held(
      await api.install(ada, {
        name: 'screening',
        versionId: v.id,
        config,
        approveHosts: [VENDOR, 'one.vendor.example'],
        comment: 'please',
      }),
    );
    expect(install).toMatchObject({
      name: 'screening',
      versionId: v.id,
      enabled: false,
      config,
      hosts: [],
      missingSecrets: ['API_KEY'],
    });
    expect(change).toEqual({
      id: expect.any(String),
      tenantId: await platform.tenantId('new-wait'),
      installId: install.id,
      installName: 'screening',
      versionId: v.id,
      config,
      enabled: true,
      hosts: [VENDOR, 'one.vendor.example'],
      hostsAdded: [VENDOR, 'one.vendor.example'],
      origin: 'save',
      needsAdded: [],
      handlesAdded: ['webhook', 'handoff'],
      newInstall: true,
      installUpdatedAt: install.updatedAt,
      approvalSettings: { required: true, fourEyes: true },
      requestedBy: 'user:ada',
      requestedAt: expect.any(String),
      comment: 'please',
      decidedBy: null,
      decidedAt: null,
      decision: null,
      decisionComment: null,
    });
    expect((await api.installOf(ada, 'screening')).pendingChange).toEqual(change);
    expect(await api.auditOf(ada, 'app.installed')).toEqual([]);
    const [requested] = await api.auditOf(ada, 'app.install.change.requested');
    expect(requested?.data).toEqual({
      name: 'screening',
      appName: 'wait-app',
      changeId: change.id,
      versionId: v.id,
      version: '1.0.0',
      previousVersionId: null,
      fromVersion: null,
      hosts: [VENDOR, 'one.vendor.example'],
      hostsAdded: [VENDOR, 'one.vendor.example'],
      hostsRemoved: [],
      newInstall: true,
      origin: 'save',
      needsAdded: [],
      handlesAdded: ['webhook', 'handoff'],
      readsDocuments: false,
      receivesWebhooks: true,
      enabled: true,
      autoUpgrade: 'off',
      comment: 'please',
    });

    // Holders of apps:publish are notified; a reader is not.
    const notes = await ok<{ items: { kind: string; data: Record<string, unknown> }[] }>(
      await api.call('/notifications', grace),
    );
    expect(notes.items).toContainEqual(
      expect.objectContaining({
        kind: 'approval_requested',
        resource: { type: 'app_install', id: install.id },
        data: expect.objectContaining({ changeId: change.id, name: 'screening', requestedBy: 'ada' }),
      }),
    );
    const reader = await platform.token({ tenant: 'new-wait', user: 'rita', roles: ['analyst'] });
    expect((await ok<{ items: unknown[] }>(await api.call('/notifications', reader))).items).toEqual([]);

    // Its secret can be stored while it waits; the requester may not approve under four-eyes.
    await ok(
      await api.call('/app-installs/screening/secrets/API_KEY', ada, 'POST', { value: 'sk-test-value' }),
    );
    const own = await errorOf(await api.approve(ada, 'screening', change.id), 403);
    expect(own).toMatchObject({ code: 'four_eyes', details: { changeId: change.id } });

    const approved = await ok<Record<string, unknown>>(
      await api.approve(grace, 'screening', change.id, { comment: 'fine' }),
    );
    expect(approved).toMatchObject({
      id: change.id,
      decision: 'approved',
      decidedBy: 'user:grace',
      decidedAt: expect.any(String),
      decisionComment: 'fine',
    });
    expect(await api.installOf(ada, 'screening')).toMatchObject({
      enabled: true,
      hosts: [VENDOR, 'one.vendor.example'],
      pendingChange: null,
    });
    const [decided] = await api.auditOf(ada, 'app.install.change.decided');
    expect(decided).toMatchObject({
      resource: { id: install.id },
      actor: { id: 'user:grace' },
      data: {
        changeId: change.id,
        decision: 'approved',
        comment: 'fine',
        applied: {
          versionId: v.id,
          enabled: true,
          hosts: [VENDOR, 'one.vendor.example'],
          missingSecrets: [],
        },
      },
    });
    const [installed] = await api.auditOf(ada, 'app.installed');
    expect(installed).toMatchObject({ data: { changeId: change.id, enabled: true, comment: 'please' } });

    const again = await errorOf(await api.approve(grace, 'screening', change.id), 409);
    expect(again).toMatchObject({ code: 'conflict', details: { changeId: change.id, decision: 'approved' } });
  });

  it('is enabled on approval only with every required secret stored', async () => {
    const ada = await api.admin('new-secrets');
    const grace = await api.admin('new-secrets', 'grace');
    const v = await published(platform, ada, changeModule('secret-app', '1.0.0'));
    await api.requireApprovals(ada);
    const { change } = await api.held(
      await api.install(ada, { name: 'n', versionId: v.id, approveHosts: [VENDOR] }),
    );
    await ok(await api.approve(grace, 'n', change.id));
    expect(await api.installOf(ada, 'n')).toMatchObject({ enabled: false, hosts: [VENDOR] });
    const [decided] = await api.auditOf(ada, 'app.install.change.decided');
    expect(decided?.data).toMatchObject({ applied: { enabled: false, missingSecrets: ['API_KEY'] } });
  });

  it('still answers hosts_not_approved first, and applies at once when it adds no host', async () => {
    const ada = await api.admin('new-checks');
    const v = await published(platform, ada, changeModule('check-app', '1.0.0'));
    await api.requireApprovals(ada);
    const refused = await errorOf(await api.install(ada, { name: 'n', versionId: v.id }), 409);
    expect(refused).toMatchObject({ code: 'hosts_not_approved', details: { added: [VENDOR] } });
    // Approvals cover apps only: with requiredFor [definitions] the install applies at once.
    await ok(
      await api.call('/tenants/me/settings', ada, 'PUT', {
        approvals: { required: true, requiredFor: ['definitions'], fourEyes: true },
        collection: { flowUrl: null },
      }),
    );
    const applied = await ok<{ hosts: string[] }>(
      await api.install(ada, { name: 'n', versionId: v.id, enabled: false, approveHosts: [VENDOR] }),
      201,
    );
    expect(applied.hosts).toEqual([VENDOR]);
  });
  it.each([
    ['unset (every area)', undefined],
    ['naming app', ['app']],
    ['naming apps, as settings saved before app was accepted', ['apps']],
  ])('holds a save adding hosts with requiredFor %s', async (_name, requiredFor) => {
    const ada = await api.admin(`new-areas-${requiredFor?.[0] ?? 'unset'}`);
    const v = await published(platform, ada, changeModule('areas-app', '1.0.0'));
    await ok(
      await api.call('/tenants/me/settings', ada, 'PUT', {
        approvals: { required: true, ...(requiredFor ? { requiredFor } : {}), fourEyes: true },
        collection: { flowUrl: null },
      }),
    );
    const { change } = await api.held(
      await api.install(ada, { name: 'n', versionId: v.id, enabled: false, approveHosts: [VENDOR] }),
    );
    expect(change).toMatchObject({ hostsAdded: [VENDOR], approvalSettings: { required: true } });
  });

  it('saved again, a waiting new install waits as new with the newly asked state; applied, it comes into service', async () => {
    const ada = await api.admin('new-again');
    const v1 = await published(platform, ada, changeModule('again-app', '1.0.0'));
    const v2 = await published(platform, ada, changeModule('again-app', '1.1.0'));
    await api.requireApprovals(ada);
    const first = await api.held(
      await api.install(ada, { name: 'n', versionId: v1.id, approveHosts: [VENDOR] }),
    );
    // Switching off only is no shortcut for a waiting install: it is checked and waits again.
    const second = await api.held(
      await api.save(ada, 'n', {
        versionId: v2.id,
        enabled: false,
        config: { note: 'two' },
        approveHosts: [VENDOR],
      }),
    );
    expect(second.install).toMatchObject({
      versionId: v2.id,
      config: { note: 'two' },
      enabled: false,
      hosts: [],
    });
    expect(second.change).toMatchObject({ newInstall: true, hostsAdded: [VENDOR], enabled: false });
    expect((await api.list(ada, '?status=decided')).items).toMatchObject([
      { id: first.change.id, decision: 'withdrawn', decisionComment: 'superseded' },
    ]);
    // With approvals off a save applies: the install comes into service (app.installed), its change superseded.
    await ok(
      await api.call('/tenants/me/settings', ada, 'PUT', {
        approvals: { required: false, requiredFor: ['apps'], fourEyes: true },
        collection: { flowUrl: null },
      }),
    );
    const applied = await ok<Record<string, unknown>>(
      await api.save(ada, 'n', { versionId: v2.id, enabled: false, approveHosts: [VENDOR] }),
    );
    expect(applied).toMatchObject({ hosts: [VENDOR], pendingChange: null, config: {} });
    const [installed] = await api.auditOf(ada, 'app.installed');
    expect(installed?.data).toMatchObject({ supersededChangeId: second.change.id, hosts: [VENDOR] });
    expect(await api.auditOf(ada, 'app.configured')).toEqual([]);
  });
});

describe('a save of an existing install under approvals', () => {
  it('keeps the install serving as approved; approval applies version, config and hosts in one go', async () => {
    const ada = await api.admin('save-wait');
    const grace = await api.admin('save-wait', 'grace');
    const v1 = await published(platform, ada, changeModule('move-app', '1.0.0'));
    const v2 = await published(platform, ada, changeModule('move-app', '1.1.0', { handoff: true }));
    await ok(
      await api.install(ada, { name: 'm', versionId: v1.id, enabled: false, approveHosts: [VENDOR] }),
      201,
    );
    await ok(await api.call('/app-installs/m/secrets/API_KEY', ada, 'POST', { value: 'sk-test-value' }));
    const before = await ok<Record<string, unknown>>(await api.save(ada, 'm', { versionId: v1.id }));
    await api.requireApprovals(ada);

    const asked = { versionId: v2.id, config: { baseUrl: 'https://two.vendor.example' } };
    const { install, change } = await api.held(
      await api.save(ada, 'm', { ...asked, approveHosts: ['two.vendor.example'] }),
    );
    expect(install).toMatchObject({ versionId: v1.id, enabled: true, config: {}, hosts: [VENDOR] });
    expect(install.updatedAt).toBe(before.updatedAt);
    expect(change).toMatchObject({
      newInstall: false,
      versionId: v2.id,
      hosts: [VENDOR, 'two.vendor.example'],
      hostsAdded: ['two.vendor.example'],
      handlesAdded: ['handoff'],
      installUpdatedAt: before.updatedAt,
    });
    const [requested] = await api.auditOf(ada, 'app.install.change.requested');
    expect(requested?.data).toMatchObject({
      previousVersionId: v1.id,
      fromVersion: '1.0.0',
      newInstall: false,
      hostsRemoved: [],
    });

    await ok(await api.approve(grace, 'm', change.id));
    expect(await api.installOf(ada, 'm')).toMatchObject({
      versionId: v2.id,
      config: asked.config,
      hosts: [VENDOR, 'two.vendor.example'],
      enabled: true,
      pendingChange: null,
    });
    const [configured] = await api.auditOf(ada, 'app.configured');
    expect(configured).toMatchObject({
      actor: { id: 'user:grace' },
      data: { changeId: change.id, versionId: v2.id, previousVersionId: v1.id, configChanged: true },
    });
  });

  it('supersedes the open change with any newer save, waiting or applied', async () => {
    const ada = await api.admin('supersede');
    const v = await published(platform, ada, changeModule('sup-app', '1.0.0'));
    await ok(
      await api.install(ada, { name: 's', versionId: v.id, enabled: false, approveHosts: [VENDOR] }),
      201,
    );
    await api.requireApprovals(ada);
    const first = await api.held(
      await api.save(ada, 's', {
        versionId: v.id,
        enabled: false,
        config: { baseUrl: 'https://a.vendor.example' },
        approveHosts: ['a.vendor.example'],
      }),
    );
    const second = await api.held(
      await api.save(ada, 's', {
        versionId: v.id,
        enabled: false,
        config: { baseUrl: 'https://b.vendor.example' },
        approveHosts: ['b.vendor.example'],
      }),
    );
    const decided = await api.list(ada, '?status=decided');
    expect(decided.items).toEqual([
      expect.objectContaining({
        id: first.change.id,
        decision: 'withdrawn',
        decisionComment: 'superseded',
        decidedBy: 'user:ada',
      }),
    ]);
    // A save adding no host applies at once and supersedes the waiting one too.
    const applied = await ok<{ config: Record<string, unknown>; pendingChange: unknown }>(
      await api.save(ada, 's', { versionId: v.id, enabled: false, config: { note: 'n' } }),
    );
    expect(applied).toMatchObject({ config: { note: 'n' }, pendingChange: null });
    expect((await api.list(ada, '?status=decided')).items.map((c) => [c.id, c.decisionComment])).toEqual([
      [second.change.id, 'superseded'],
      [first.change.id, 'superseded'],
    ]);
    expect((await api.list(ada)).items).toEqual([]);
    const superseded = await api.auditOf(ada, 'app.install.change.decided');
    expect(superseded.map((a) => a.data.comment)).toEqual(['superseded', 'superseded']);
  });

  it('applies switching off and stopping documents at once; the rest waits', async () => {
    const ada = await api.admin('documents');
    const grace = await api.admin('documents', 'grace');
    const v = await published(platform, ada, changeModule('docs-app', '1.0.0', { documents: 'switch' }));
    await ok(
      await api.install(ada, {
        name: 'd',
        versionId: v.id,
        enabled: false,
        config: { documents: true },
        approveHosts: [VENDOR],
      }),
      201,
    );
    await ok(await api.call('/app-installs/d/secrets/API_KEY', ada, 'POST', { value: 'sk-test-value' }));
    await ok(await api.save(ada, 'd', { versionId: v.id, config: { documents: true } }));
    expect((await api.auditOf(ada, 'app.install.documents.enabled')).map((a) => a.data.via)).toEqual([
      'save',
    ]);
    await api.requireApprovals(ada);

    const asked = { documents: false, baseUrl: 'https://x.vendor.example' };
    const { install, change } = await api.held(
      await api.save(ada, 'd', {
        versionId: v.id,
        enabled: false,
        config: asked,
        approveHosts: ['x.vendor.example'],
      }),
    );
    expect(install).toMatchObject({ enabled: false, config: { documents: false }, hosts: [VENDOR] });
    expect(change).toMatchObject({ enabled: false, config: asked, installUpdatedAt: install.updatedAt });
    const [disabled] = await api.auditOf(ada, 'app.install.documents.disabled');
    expect(disabled?.data).toMatchObject({ via: 'save', changeId: change.id });
    const [configured] = await api.auditOf(ada, 'app.configured');
    expect(configured?.data).toMatchObject({
      appliedAtOnceOf: change.id,
      enabled: false,
      configChanged: true,
    });

    await ok(await api.approve(grace, 'd', change.id));
    expect(await api.installOf(ada, 'd')).toMatchObject({ enabled: false, config: asked });

    // Turning documents back on with a new host: the change adds documents; approval starts them.
    const on = { documents: true, baseUrl: 'https://y.vendor.example' };
    const again = await api.held(
      await api.save(ada, 'd', { versionId: v.id, config: on, approveHosts: ['y.vendor.example'] }),
    );
    expect(again.change).toMatchObject({ needsAdded: ['documents'], enabled: true });
    const [requested] = await api.auditOf(ada, 'app.install.change.requested');
    expect(requested?.data).toMatchObject({ needsAdded: ['documents'], readsDocuments: true });
    await ok(await api.approve(grace, 'd', again.change.id));
    const [enabled] = await api.auditOf(ada, 'app.install.documents.enabled');
    expect(enabled?.data).toMatchObject({ via: 'change', changeId: again.change.id });
    expect(await api.installOf(ada, 'd')).toMatchObject({ enabled: true, config: on });
  });

  it('lets a secret be stored when the change awaiting approval declares it', async () => {
    const ada = await api.admin('pending-secret');
    const v = await published(platform, ada, configurableModule('var-app', '1.0.0'));
    await ok(
      await api.install(ada, { name: 'p', versionId: v.id, enabled: false, approveHosts: [VENDOR] }),
      201,
    );
    await api.requireApprovals(ada);
    const refused = await errorOf(
      await api.call('/app-installs/p/secrets/VAR_TOKEN', ada, 'POST', { value: 'var-token-value' }),
      400,
    );
    expect(refused.code).toBe('validation_error');
    await api.held(
      await api.save(ada, 'p', {
        versionId: v.id,
        enabled: false,
        config: { baseUrl: 'https://v.vendor.example', variables: [{ key: 'VAR_TOKEN', secret: true }] },
        approveHosts: ['v.vendor.example'],
      }),
    );
    const stored = await ok<{ storedSecrets: string[] }>(
      await api.call('/app-installs/p/secrets/VAR_TOKEN', ada, 'POST', { value: 'var-token-value' }),
    );
    expect(stored.storedSecrets).toEqual(['VAR_TOKEN']);
  });
});
