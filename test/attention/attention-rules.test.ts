// The attention list's pure parts: the titles and console links of install items, who hears of a waiting
// change, and how sources gather by permission. (Which release an opted-in install moves to, and whether
// it waits: test/upgrades/upgrade-rules.test.ts.)
import { describe, expect, it } from 'vitest';
import { type AttentionSource, readAttention } from '../../src/attention/attention.ts';
import {
  changeHref,
  installHref,
  pendingChangeTitle,
  upgradeWaitingTitle,
} from '../../src/attention/attention-rules.ts';
import type { Queryable } from '../../src/db/pool.ts';
import { changeMovesVersion, changePendingAudience } from '../../src/installs/changes/changes-rules.ts';

describe('titles and links of install items', () => {
  const change = {
    installName: 'kyc',
    appName: 'idv',
    version: '1.1.0',
    movesVersion: false,
    newInstall: false,
    origin: 'save' as const,
    requestedByName: 'Ana Ruiz',
    requestedBy: 'user:ana',
  };
  it.each([
    [{}, 'Ana Ruiz asked to change install kyc; it waits for approval'],
    [{ movesVersion: true }, 'Ana Ruiz asked to change install kyc (to idv 1.1.0); it waits for approval'],
    [{ newInstall: true }, 'Ana Ruiz asked to install kyc (idv 1.1.0); it waits for approval'],
    [{ requestedByName: null }, 'user:ana asked to change install kyc; it waits for approval'],
    [{ requestedByName: ' ' }, 'user:ana asked to change install kyc; it waits for approval'],
    [
      { origin: 'auto_upgrade' as const },
      'The automatic upgrade of install kyc to idv 1.1.0 waits for approval',
    ],
  ])('a change %j', (over, title) => {
    expect(pendingChangeTitle({ ...change, ...over })).toBe(title);
  });

  const waiting = { name: 'kyc', appName: 'idv', running: '1.0.0', target: '1.2.0', rollback: false };
  it.each([
    ['approval', 'Install kyc runs idv 1.0.0; the upgrade to 1.2.0 waits for approval'],
    [
      'secrets',
      'Install kyc runs idv 1.0.0; the upgrade to 1.2.0 waits for its required secrets to be stored',
    ],
    ['config', 'Install kyc runs idv 1.0.0; the upgrade to 1.2.0 waits for a config the new version accepts'],
    [
      'actions',
      'Install kyc runs idv 1.0.0; the upgrade to 1.2.0 waits: published definitions call actions it no longer answers',
    ],
    ['declined', 'Install kyc runs idv 1.0.0; the upgrade to 1.2.0 was declined and is not asked again'],
  ] as const)('names the running and the waiting version of an upgrade waiting for %s', (waitingFor, title) => {
    expect(upgradeWaitingTitle({ ...waiting, waitingFor })).toBe(title);
  });

  it('names a rollback as such', () => {
    expect(
      upgradeWaitingTitle({
        ...waiting,
        running: '1.3.0',
        target: '1.2.0',
        rollback: true,
        waitingFor: 'secrets',
      }),
    ).toBe('Install kyc runs idv 1.3.0; the rollback to 1.2.0 waits for its required secrets to be stored');
  });

  it('links to the install and its change in the console', () => {
    expect(installHref('kyc')).toBe('/apps/installs/kyc');
    expect(changeHref('kyc', 'c-1')).toBe('/apps/installs/kyc/changes/c-1');
  });
});

describe('notifications of changes', () => {
  it('tells the requester of a save that its change waits, and holders of apps:write of an automatic one', () => {
    expect(changePendingAudience({ origin: 'save', requestedBy: 'user:ana' })).toEqual({
      recipient: 'user:ana',
    });
    expect(changePendingAudience({ origin: 'auto_upgrade', requestedBy: 'system' })).toEqual({
      audiencePermission: 'apps:write',
    });
  });

  it.each([
    [false, 'v1', 'v2', true],
    [false, 'v1', 'v1', false],
    [true, 'v1', 'v2', false],
  ])('an approved change (new install %s) from %s to %s moves the version: %s', (newInstall, from, to, moves) => {
    expect(changeMovesVersion({ newInstall }, { versionId: from }, { versionId: to })).toBe(moves);
  });
});

describe('readAttention', () => {
  const since = new Date('2026-11-26T10:00:00Z');
  const source = (
    kind: AttentionSource['kind'],
    count: AttentionSource['count'],
    permission: AttentionSource['permission'],
    n: number,
  ): AttentionSource => ({
    kind,
    count,
    permission,
    read: async (_db, tenantId) =>
      Array.from({ length: n }, (_, i) => ({
        resource: { type: kind, id: `${tenantId}-${i}` },
        title: `${kind} ${i}`,
        href: null,
        since,
      })),
  });
  const sources = [
    source('install_change_pending', 'installChangesPending', 'apps:read', 2),
    source('webhook_endpoint_failing', 'failingEndpoints', 'webhooks:read', 1),
  ];
  const db = {} as Queryable;

  it('reads the sources the caller’s permissions show, in order, and leaves the others’ counts 0', async () => {
    const all = await readAttention(
      db,
      { tenantId: 't', permissions: new Set(['apps:read', 'webhooks:read']) },
      sources,
    );
    expect(all.counts).toEqual({ installChangesPending: 2, installUpgradesWaiting: 0, failingEndpoints: 1 });
    expect(all.items.map((i) => [i.kind, i.resource.id, i.since])).toEqual([
      ['install_change_pending', 't-0', since.toISOString()],
      ['install_change_pending', 't-1', since.toISOString()],
      ['webhook_endpoint_failing', 't-0', since.toISOString()],
    ]);
    const apps = await readAttention(db, { tenantId: 't', permissions: new Set(['apps:read']) }, sources);
    expect(apps.counts).toEqual({ installChangesPending: 2, installUpgradesWaiting: 0, failingEndpoints: 0 });
    expect(apps.items.map((i) => i.kind)).toEqual(['install_change_pending', 'install_change_pending']);
    expect(await readAttention(db, { tenantId: 't', permissions: new Set() }, sources)).toEqual({
      counts: { installChangesPending: 0, installUpgradesWaiting: 0, failingEndpoints: 0 },
      items: [],
    });
  });
});
