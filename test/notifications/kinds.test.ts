// The notification kinds install changes raise (docs/notifications.md), each reaching its audience and no
// one else: install_change_pending to the requester of a held save, app_upgraded to holders of apps:write
// when an approved change moves an install to another version (not when it keeps the version, and not for
// a new install coming into service).
import { beforeAll, describe, expect, it } from 'vitest';
import type { CataloguePlatform } from '../catalogue/support.ts';
import { type ChangeCalls, changeModule, changesPlatform } from '../installs/changes-support.ts';
import { ok, published, type Version } from '../installs/support.ts';

let platform: CataloguePlatform;
let api: ChangeCalls;
changesPlatform((started, calls) => {
  platform = started;
  api = calls;
});

const VENDOR = 'api.vendor.test';

interface Note {
  id: string;
  kind: string;
  resource: { type: string; id: string };
  data: Record<string, unknown>;
}

const notes = async (token: string, kind?: string) => {
  const page = await ok<{ items: Note[] }>(await api.call('/notifications?limit=100', token));
  return kind ? page.items.filter((n) => n.kind === kind) : page.items;
};

let ada: string;
let grace: string;
/** Holders of one or two permissions in the tenant, and an analyst. */
let writer: string;
let publisher: string;
let analyst: string;
let v1: Version;
let v2: Version;
let existingId: string;

beforeAll(async () => {
  ada = await api.admin('kinds');
  grace = await api.admin('kinds', 'grace');
  writer = await api.holder('kinds', 'walt', ['apps:read', 'apps:write']);
  publisher = await api.holder('kinds', 'pam', ['apps:read', 'apps:publish']);
  analyst = await platform.token({ tenant: 'kinds', user: 'rita', roles: ['analyst'] });
  v1 = await published(platform, ada, changeModule('kinds-app', '1.0.0'));
  v2 = await published(platform, ada, changeModule('kinds-app', '1.1.0'));
  existingId = (
    await ok<{ id: string }>(
      await api.install(ada, { name: 'existing', versionId: v1.id, enabled: false, approveHosts: [VENDOR] }),
      201,
    )
  ).id;
  await api.requireApprovals(ada);
}, 120_000);

describe('install_change_pending', () => {
  it('reaches the requester of a held save alone', async () => {
    const { install, change } = await api.held(
      await api.install(writer, { name: 'fresh', versionId: v1.id, enabled: false, approveHosts: [VENDOR] }),
    );
    expect(await notes(writer, 'install_change_pending')).toEqual([
      {
        id: expect.any(String),
        kind: 'install_change_pending',
        resource: { type: 'app_install', id: install.id },
        data: {
          name: 'fresh',
          appName: 'kinds-app',
          changeId: change.id,
          versionId: v1.id,
          version: '1.0.0',
          origin: 'save',
          newInstall: true,
          hostsAdded: [VENDOR],
        },
        createdAt: expect.any(String),
        read: false,
      },
    ]);
    for (const other of [ada, grace, publisher, analyst]) {
      expect(await notes(other, 'install_change_pending')).toEqual([]);
    }
    // Holders of apps:publish hear of it as approval_requested; the requester (apps:write only) does not.
    expect((await notes(publisher, 'approval_requested')).map((n) => n.data.changeId)).toContain(change.id);
    expect(await notes(writer, 'approval_requested')).toEqual([]);
    // A new install coming into service moves no version: no app_upgraded.
    await ok(await api.approve(ada, 'fresh', change.id));
    expect(await notes(writer, 'app_upgraded')).toEqual([]);
  });
});

describe('app_upgraded', () => {
  it('reaches holders of apps:write when an approved change moves an install to another version', async () => {
    const { change } = await api.held(
      await api.save(grace, 'existing', {
        versionId: v2.id,
        enabled: false,
        config: { baseUrl: 'https://one.vendor.example' },
        approveHosts: ['one.vendor.example'],
      }),
    );
    expect(await notes(writer, 'app_upgraded')).toEqual([]);
    await ok(await api.approve(ada, 'existing', change.id));
    const expected = {
      id: expect.any(String),
      kind: 'app_upgraded',
      resource: { type: 'app_install', id: existingId },
      data: {
        name: 'existing',
        appName: 'kinds-app',
        changeId: change.id,
        fromVersionId: v1.id,
        fromVersion: '1.0.0',
        toVersionId: v2.id,
        toVersion: '1.1.0',
        automatic: false,
        rollback: false,
        hostsRemoved: [],
      },
      createdAt: expect.any(String),
      read: false,
    };
    for (const holder of [writer, ada, grace])
      expect(await notes(holder, 'app_upgraded')).toEqual([expected]);
    for (const other of [publisher, analyst]) expect(await notes(other, 'app_upgraded')).toEqual([]);
    expect(await notes(await api.admin('kinds-other'))).toEqual([]);
  });

  it('is not raised when the approved change keeps the version', async () => {
    const { change } = await api.held(
      await api.save(grace, 'existing', {
        versionId: v2.id,
        enabled: false,
        config: { baseUrl: 'https://two.vendor.example' },
        approveHosts: ['two.vendor.example'],
      }),
    );
    await ok(await api.approve(ada, 'existing', change.id));
    expect(await notes(writer, 'app_upgraded')).toHaveLength(1);
  });

  it('is not raised by a rejected change', async () => {
    const { change } = await api.held(
      await api.save(grace, 'existing', {
        versionId: v1.id,
        enabled: false,
        config: { baseUrl: 'https://three.vendor.example' },
        approveHosts: ['three.vendor.example'],
      }),
    );
    await ok(await api.reject(ada, 'existing', change.id));
    expect(await notes(writer, 'app_upgraded')).toHaveLength(1);
  });
});
