// GET /attention through the real api: open install changes and opted-in installs whose upgrade waits,
// counted and listed for holders of apps:read only, per tenant; a decided change, an open change holding
// an upgrade, and a blocked or incompatible release leave the list.
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { appBlocks, appVersions } from '../../src/catalogue/tables.ts';
import { appInstallChanges } from '../../src/installs/tables.ts';
import type { CataloguePlatform } from '../catalogue/support.ts';
import { expectError } from '../http/expect.ts';
import { type ChangeCalls, changeModule, changesPlatform } from '../installs/changes-support.ts';
import { ok, published, publishPlatformApps } from '../installs/support.ts';

let platform: CataloguePlatform;
let api: ChangeCalls;
changesPlatform((started, calls) => {
  platform = started;
  api = calls;
});

const VENDOR = 'api.vendor.test';

interface Item {
  kind: string;
  resource: { type: string; id: string };
  title: string;
  href: string | null;
  since: string;
}
interface Attention {
  counts: { installChangesPending: number; installUpgradesWaiting: number; failingEndpoints: number };
  items: Item[];
}

const attention = async (token: string) => ok<Attention>(await api.call('/attention', token));
const none: Attention = {
  counts: { installChangesPending: 0, installUpgradesWaiting: 0, failingEndpoints: 0 },
  items: [],
};

let ada: string;
let grace: string;
const ids: Record<string, string> = {};
let platformVersions: Map<string, string>;
let heldVersions: Map<string, string>;

beforeAll(async () => {
  ada = await api.admin('home');
  grace = await api.admin('home', 'grace');
  const release = await publishPlatformApps(platform, {
    'plat-home': ['1.0.0', '1.1.0', '1.2.0-beta.1', '2.0.0'],
    'plat-held': ['1.0.0', '1.3.0'],
  });
  platformVersions = release.get('plat-home') as Map<string, string>;
  heldVersions = release.get('plat-held') as Map<string, string>;
  const platformInstall = async (name: string, versionId: string | undefined, autoUpgrade: string) => {
    const body = await ok<{ id: string }>(
      await api.install(ada, { name, versionId, enabled: false, approveHosts: [VENDOR], autoUpgrade }),
      201,
    );
    ids[name] = body.id;
  };
  await platformInstall('auto', platformVersions.get('1.0.0'), 'compatible');
  await platformInstall('latest', platformVersions.get('1.1.0'), 'compatible');
  await platformInstall('manual', platformVersions.get('1.0.0'), 'off');
  await platformInstall('held', heldVersions.get('1.0.0'), 'compatible');
  const v1 = await published(platform, ada, changeModule('home-app', '1.0.0'));
  const v2 = await published(platform, ada, changeModule('home-app', '1.1.0'));
  ids.existing = (
    await ok<{ id: string }>(
      await api.install(ada, { name: 'existing', versionId: v1.id, enabled: false, approveHosts: [VENDOR] }),
      201,
    )
  ).id;
  await api.requireApprovals(ada);
  const newbie = await api.held(
    await api.install(ada, { name: 'newbie', versionId: v1.id, enabled: false, approveHosts: [VENDOR] }),
  );
  ids.newbie = newbie.install.id;
  ids.newbieChange = newbie.change.id;
  const saved = await api.held(
    await api.save(grace, 'existing', {
      versionId: v2.id,
      enabled: false,
      config: { baseUrl: 'https://one.vendor.example' },
      approveHosts: ['one.vendor.example'],
    }),
  );
  ids.existingChange = saved.change.id;
}, 120_000);

const changeItems = () => [
  {
    kind: 'install_change_pending',
    resource: { type: 'app_install_change', id: ids.newbieChange },
    title: 'ada asked to install newbie (home-app 1.0.0); it waits for approval',
    href: `/apps/installs/newbie/changes/${ids.newbieChange}`,
    since: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
  },
  {
    kind: 'install_change_pending',
    resource: { type: 'app_install_change', id: ids.existingChange },
    title: 'grace asked to change install existing (to home-app 1.1.0); it waits for approval',
    href: `/apps/installs/existing/changes/${ids.existingChange}`,
    since: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
  },
];
/** An opted-in install whose upgrade waits: these are installed disabled, without their secret. */
const upgradeItem = (name: string, app: string, running: string, target: string) => ({
  kind: 'install_upgrade_waiting',
  resource: { type: 'app_install', id: ids[name] },
  title: `Install ${name} runs ${app} ${running}; the upgrade to ${target} waits for its required secrets to be stored`,
  href: `/apps/installs/${name}`,
  since: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
});

describe('GET /attention', () => {
  it('lists open changes, then opted-in installs with a compatible release waiting, each oldest first', async () => {
    const seen = await attention(ada);
    expect(seen).toEqual({
      counts: { installChangesPending: 2, installUpgradesWaiting: 2, failingEndpoints: 0 },
      items: [
        ...changeItems(),
        upgradeItem('auto', 'plat-home', '1.0.0', '1.1.0'),
        upgradeItem('held', 'plat-held', '1.0.0', '1.3.0'),
      ],
    });
    const [first, second] = seen.items as [Item, Item];
    expect(first.since <= second.since).toBe(true);
    // An upgrade waits since the later of its target's publication and the install's creation.
    const created = await api.installOf(ada, 'auto');
    expect(seen.items[2]?.since).toBe(created.createdAt);
  });

  it('shows the same to a reader (apps:read), nothing to a caller without it nor to another tenant', async () => {
    const analyst = await platform.token({ tenant: 'home', user: 'rita', roles: ['analyst'] });
    expect(await attention(analyst)).toEqual(await attention(ada));
    expect(await attention(await api.holder('home', 'dee', ['definitions:read', 'webhooks:read']))).toEqual(
      none,
    );
    expect(await attention(await api.admin('home-other'))).toEqual(none);
  });

  it('leaves out an install whose open change holds its upgrade, and lists that change', async () => {
    const [row] = await platform.database.db
      .insert(appInstallChanges)
      .values({
        tenantId: await platform.tenantId('home'),
        installId: ids.auto,
        installName: 'auto',
        versionId: platformVersions.get('1.1.0') as string,
        config: {},
        enabled: false,
        autoUpgrade: 'compatible',
        hosts: [VENDOR],
        hostsAdded: [],
        origin: 'auto_upgrade',
        newInstall: false,
        installUpdatedAt: new Date(),
        approvalRequired: true,
        fourEyes: true,
        requestedBy: 'system',
      })
      .returning();
    try {
      const seen = await attention(ada);
      expect(seen.counts).toEqual({
        installChangesPending: 3,
        installUpgradesWaiting: 1,
        failingEndpoints: 0,
      });
      expect(seen.items).toContainEqual(
        expect.objectContaining({
          kind: 'install_change_pending',
          resource: { type: 'app_install_change', id: row?.id },
          title: 'The automatic upgrade of install auto to plat-home 1.1.0 waits for approval',
        }),
      );
      expect(
        seen.items.filter((i) => i.kind === 'install_upgrade_waiting').map((i) => i.resource.id),
      ).toEqual([ids.held]);
    } finally {
      await platform.database.db.delete(appInstallChanges).where(eq(appInstallChanges.id, row?.id as string));
    }
  });

  it('leaves out an upgrade whose only target is blocked', async () => {
    const [target] = await platform.database.db
      .select({ sha256: appVersions.sha256 })
      .from(appVersions)
      .where(eq(appVersions.id, heldVersions.get('1.3.0') as string));
    await platform.database.db
      .insert(appBlocks)
      .values({ sha256: target?.sha256 as string, reason: 'leaks data', createdBy: 'op' });
    const seen = await attention(ada);
    expect(seen.counts.installUpgradesWaiting).toBe(1);
    expect(seen.items.filter((i) => i.kind === 'install_upgrade_waiting')).toEqual([
      upgradeItem('auto', 'plat-home', '1.0.0', '1.1.0'),
    ]);
  });

  it('drops a change once decided', async () => {
    await ok(await api.approve(ada, 'existing', ids.existingChange as string));
    await ok(await api.reject(grace, 'newbie', ids.newbieChange as string));
    const seen = await attention(ada);
    expect(seen.counts).toEqual({ installChangesPending: 0, installUpgradesWaiting: 1, failingEndpoints: 0 });
    expect(seen.items.map((i) => i.kind)).toEqual(['install_upgrade_waiting']);
  });

  it('takes no query parameter and needs a token', async () => {
    const error = await expectError(await api.call('/attention?limit=5', ada), 400, 'validation_error');
    expect(error.details).toEqual({ issues: [{ path: 'query.limit', message: 'unknown field' }] });
    await expectError(await platform.fetch('/attention', { token: null }), 401, 'unauthorized');
  });
});
