// Deciding install changes through the real api (docs/install-changes.md "Approve", "Reject and
// withdraw", "The list"): refusals of approve, reject and withdraw, the list, tenant isolation and a
// decision racing a save.
import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { appBlocks } from '../../src/catalogue/tables.ts';
import { appInstallChanges } from '../../src/installs/tables.ts';
import type { CataloguePlatform } from '../catalogue/support.ts';
import { type ChangeCalls, changeModule, changesPlatform } from './changes-support.ts';
import { errorOf, ok, published } from './support.ts';

let platform: CataloguePlatform;
let api: ChangeCalls;
changesPlatform((started, calls) => {
  platform = started;
  api = calls;
});

const VENDOR = 'api.vendor.test';
const WRITER = ['apps:read', 'apps:write'];

/** A tenant with two versions of an app, an install `i` of the first when asked, then approvals required. */
async function setUp(tenant: string, options: { fourEyes?: boolean; app?: string; install?: boolean } = {}) {
  const ada = await api.admin(tenant);
  const grace = await api.admin(tenant, 'grace');
  const app = options.app ?? `${tenant}-app`;
  const v1 = await published(platform, ada, changeModule(app, '1.0.0'));
  const v2 = await published(platform, ada, changeModule(app, '1.1.0'));
  if (options.install) {
    await ok(
      await api.install(ada, { name: 'i', versionId: v1.id, enabled: false, approveHosts: [VENDOR] }),
      201,
    );
  }
  await api.requireApprovals(ada, options.fourEyes ?? true);
  return { ada, grace, v1, v2 };
}

/** A held save of install `name` by `token`, adding host `<host>.vendor.example`. */
const heldSave = async (token: string, name: string, versionId: string, host: string) =>
  api.held(
    await api.save(token, name, {
      versionId,
      enabled: false,
      config: { baseUrl: `https://${host}.vendor.example` },
      approveHosts: [`${host}.vendor.example`],
    }),
  );

/** A new install held for approval. */
const heldNew = async (token: string, name: string, versionId: string) =>
  api.held(await api.install(token, { name, versionId, enabled: false, approveHosts: [VENDOR] }));

describe('approve refusals', () => {
  it('four-eyes follows the setting in force when requested', async () => {
    const { ada, v1 } = await setUp('eyes');
    const { change } = await heldNew(ada, 'i', v1.id);
    await ok(
      await api.call('/tenants/me/settings', ada, 'PUT', {
        approvals: { required: true, requiredFor: ['apps'], fourEyes: false },
        collection: { flowUrl: null },
      }),
    );
    const own = await errorOf(await api.approve(ada, 'i', change.id), 403);
    expect(own).toMatchObject({ code: 'four_eyes', details: { changeId: change.id } });
    // Requested without four-eyes, the requester may approve their own change.
    const { change: free } = await heldNew(ada, 'j', v1.id);
    expect(free).toMatchObject({ approvalSettings: { required: true, fourEyes: false } });
    expect(await ok(await api.approve(ada, 'j', free.id))).toMatchObject({ decision: 'approved' });
  });

  it('needs apps:publish; a writer gets 403 forbidden', async () => {
    const { ada, v1 } = await setUp('publish-needed');
    const { change } = await heldNew(ada, 'i', v1.id);
    const bob = await api.holder('publish-needed', 'bob', WRITER);
    for (const refused of [await api.approve(bob, 'i', change.id), await api.reject(bob, 'i', change.id)]) {
      expect(await errorOf(refused, 403)).toMatchObject({
        code: 'forbidden',
        details: { permission: 'apps:publish' },
      });
    }
  });

  it('approves after a rename or a circuit-settings save: neither moves what the change was asked against', async () => {
    const { ada, grace, v1 } = await setUp('kept-open', { install: true });
    const { change } = await heldSave(ada, 'i', v1.id, 'm');
    await ok(
      await api.call('/app-installs/i/circuit', ada, 'PUT', { failureThreshold: 3, openSeconds: null }),
    );
    await ok(await api.call('/app-installs/i/rename', ada, 'POST', { name: 'renamed' }));
    expect(await ok(await api.approve(grace, 'renamed', change.id))).toMatchObject({
      decision: 'approved',
      installName: 'renamed',
    });
    expect(await api.installOf(ada, 'renamed')).toMatchObject({
      hosts: [VENDOR, 'm.vendor.example'],
      circuit: { settings: { failureThreshold: 3, openSeconds: null } },
    });
  });

  it('answers install_changed when what the change was asked against moved since the request', async () => {
    const { ada, grace, v1 } = await setUp('moved', { install: true });
    const { change } = await heldSave(ada, 'i', v1.id, 'm');
    // Saves supersede the open change; another writer of the install's state (as automatic upgrades
    // will be) moves it under the change.
    await platform.database.db.execute(
      sql`update app_installs set enabled = true where id = ${change.installId as string}`,
    );
    const changed = await errorOf(await api.approve(grace, 'i', change.id), 409);
    expect(changed).toMatchObject({ code: 'install_changed', details: { changeId: change.id } });
    expect(await api.installOf(ada, 'i')).toMatchObject({
      hosts: [VENDOR],
      pendingChange: { id: change.id },
    });
  });

  it('checks the version again: withdrawn is a conflict, blocked is app_blocked', async () => {
    const { ada, grace, v1, v2 } = await setUp('recheck', { install: true });
    const { change } = await heldSave(ada, 'i', v2.id, 'w');
    await ok(await api.call(`/apps/recheck-app/versions/${v2.id}`, ada, 'DELETE'));
    const withdrawn = await errorOf(await api.approve(grace, 'i', change.id), 409);
    expect(withdrawn).toMatchObject({
      code: 'conflict',
      details: { changeId: change.id, versionId: v2.id, status: 'withdrawn' },
    });

    const { change: again } = await heldSave(ada, 'i', v1.id, 'b');
    const [row] = await platform.database.db
      .select()
      .from(appInstallChanges)
      .where(eq(appInstallChanges.id, again.id));
    const versions = (
      await ok<{ items: { id: string; sha256: string }[] }>(await api.call('/apps/recheck-app/versions', ada))
    ).items;
    const sha256 = versions.find((v) => v.id === row?.versionId)?.sha256;
    await platform.database.db
      .insert(appBlocks)
      .values({ sha256, reason: 'leaks data', createdBy: 'operator' });
    const blocked = await errorOf(await api.approve(grace, 'i', again.id), 409);
    expect(blocked).toEqual(
      expect.objectContaining({ code: 'app_blocked', details: { sha256, reason: 'leaks data' } }),
    );
    expect(await api.list(ada, '?install=i')).toMatchObject({ items: [{ id: again.id, decision: null }] });
  });

  it('refuses a config that no longer holds or no longer gives the hosts asked for (409 conflict)', async () => {
    const { ada, grace, v1 } = await setUp('hosts-again', { install: true });
    const { change } = await heldSave(ada, 'i', v1.id, 'h');
    // As if requested under other deployment host rules: the stored state no longer matches its config.
    const db = platform.database.db;
    await db
      .update(appInstallChanges)
      .set({ hosts: [VENDOR, 'other.vendor.example'] })
      .where(eq(appInstallChanges.id, change.id));
    const hosts = await errorOf(await api.approve(grace, 'i', change.id), 409);
    expect(hosts).toMatchObject({
      code: 'conflict',
      details: {
        changeId: change.id,
        hosts: [VENDOR, 'other.vendor.example'],
        configHosts: [VENDOR, 'h.vendor.example'],
      },
    });
    await db
      .update(appInstallChanges)
      .set({ config: { baseUrl: 'http://h.vendor.example' } })
      .where(eq(appInstallChanges.id, change.id));
    const invalid = await errorOf(await api.approve(grace, 'i', change.id), 409);
    expect(invalid).toMatchObject({
      code: 'conflict',
      details: { changeId: change.id, issues: [expect.objectContaining({ path: '/baseUrl' })] },
    });
  });
});

describe('reject and withdraw', () => {
  it('reject leaves an install as it is; a new install goes with its change, which stays listed', async () => {
    const { ada, grace, v1 } = await setUp('reject', { install: true });
    const { change } = await heldSave(ada, 'i', v1.id, 'r');
    const rejected = await ok<Record<string, unknown>>(
      await api.reject(grace, 'i', change.id, { comment: 'no' }),
    );
    expect(rejected).toMatchObject({
      id: change.id,
      decision: 'rejected',
      decisionComment: 'no',
      installId: change.installId,
    });
    expect(await api.installOf(ada, 'i')).toMatchObject({ hosts: [VENDOR], config: {}, pendingChange: null });
    expect(await errorOf(await api.reject(grace, 'i', change.id), 409)).toMatchObject({
      code: 'conflict',
      details: { decision: 'rejected' },
    });

    // The requester may reject (four-eyes guards approval only); the new install goes.
    const fresh = await heldNew(ada, 'fresh', v1.id);
    await ok(await api.call('/app-installs/fresh/secrets/API_KEY', ada, 'POST', { value: 'sk-test-value' }));
    const gone = await ok<Record<string, unknown>>(await api.reject(ada, 'fresh', fresh.change.id));
    expect(gone).toMatchObject({
      decision: 'rejected',
      installId: null,
      installName: 'fresh',
      newInstall: true,
    });
    expect((await errorOf(await api.call('/app-installs/fresh', ada), 404)).code).toBe('unknown_install');
    expect((await api.list(ada, '?status=decided&install=fresh')).items).toEqual([gone]);
    const [decided] = await api.auditOf(ada, 'app.install.change.decided');
    expect(decided).toMatchObject({
      resource: { id: fresh.install.id },
      data: { decision: 'rejected', installRemoved: true, secretsRemoved: ['API_KEY'] },
    });
    // The name is free again.
    await heldNew(ada, 'fresh', v1.id);
  });

  it('withdraw: the requester, or an administrator with tenants:settings; anyone else 403 not_requester', async () => {
    const { ada, v1 } = await setUp('withdraw');
    const bob = await api.holder('withdraw', 'bob', WRITER);
    const carl = await api.holder('withdraw', 'carl', [...WRITER, 'apps:publish']);
    const { change } = await heldNew(bob, 'i', v1.id);
    const refused = await errorOf(await api.withdraw(carl, 'i', change.id), 403);
    expect(refused).toMatchObject({ code: 'not_requester', details: { changeId: change.id } });
    const byAdmin = await ok<Record<string, unknown>>(await api.withdraw(ada, 'i', change.id));
    expect(byAdmin).toMatchObject({ decision: 'withdrawn', decidedBy: 'user:ada', installId: null });
    expect((await errorOf(await api.call('/app-installs/i', ada), 404)).code).toBe('unknown_install');

    await ok(
      await api.call('/tenants/me/settings', ada, 'PUT', {
        approvals: { required: false, requiredFor: ['apps'], fourEyes: true },
        collection: { flowUrl: null },
      }),
    );
    await ok(
      await api.install(ada, { name: 'k', versionId: v1.id, enabled: false, approveHosts: [VENDOR] }),
      201,
    );
    await api.requireApprovals(ada);
    const own = await heldSave(bob, 'k', v1.id, 'o');
    const mine = await ok<Record<string, unknown>>(await api.withdraw(bob, 'k', own.change.id));
    expect(mine).toMatchObject({ decision: 'withdrawn', decidedBy: 'user:bob', installId: own.install.id });
    expect(await api.installOf(ada, 'k')).toMatchObject({ hosts: [VENDOR], pendingChange: null });
    expect(await errorOf(await api.withdraw(bob, 'k', own.change.id), 409)).toMatchObject({
      code: 'conflict',
    });
    const [decided] = await api.auditOf(ada, 'app.install.change.decided');
    expect(decided).toMatchObject({
      actor: { id: 'user:bob' },
      data: { decision: 'withdrawn', installRemoved: false },
    });
  });
});

describe('the list and tenant isolation', () => {
  it('lists open oldest first, decided newest first, by install, paged', async () => {
    const { ada, grace, v1 } = await setUp('listing');
    const a = await heldNew(ada, 'a', v1.id);
    const b = await heldNew(ada, 'b', v1.id);
    const c = await heldNew(ada, 'c', v1.id);
    const open = await api.list(ada);
    expect(open).toEqual({ items: [a.change, b.change, c.change], total: 3, totalIsEstimate: false });
    expect(await api.list(ada, '?limit=1&offset=1')).toEqual({
      items: [b.change],
      total: 3,
      totalIsEstimate: false,
    });
    expect((await api.list(ada, '?install=b')).items).toEqual([b.change]);
    expect(await api.list(ada, '?install=nobody')).toEqual({ items: [], total: 0, totalIsEstimate: false });
    await ok(await api.approve(grace, 'c', c.change.id));
    await ok(await api.reject(grace, 'a', a.change.id));
    const decided = await api.list(ada, '?status=decided');
    expect(decided.items.map((x) => [x.id, x.decision])).toEqual([
      [a.change.id, 'rejected'],
      [c.change.id, 'approved'],
    ]);
    expect((await api.list(ada)).items.map((x) => x.id)).toEqual([b.change.id]);
    const reader = await platform.token({ tenant: 'listing', user: 'rita', roles: ['analyst'] });
    expect((await api.list(reader)).total).toBe(1);

    // A rename keeps the change; the list shows the install's current name.
    await ok(await api.call('/app-installs/b/rename', ada, 'POST', { name: 'bee' }));
    expect((await api.list(ada, '?install=bee')).items).toMatchObject([
      { id: b.change.id, installName: 'bee' },
    ]);

    for (const query of ['?limit=0', '?limit=101', '?offset=-1', '?status=closed', '?install=Bad_Name']) {
      expect((await errorOf(await api.call(`/app-install-changes${query}`, ada), 400)).code).toBe(
        'validation_error',
      );
    }
  });

  it('answers 404 for a change of another install or tenant, and lists only the tenant’s own', async () => {
    const { ada, v1 } = await setUp('owner', { app: 'owned-app' });
    const { change } = await heldNew(ada, 'i', v1.id);
    await heldNew(ada, 'other', v1.id);
    const stranger = await api.admin('stranger');
    expect((await errorOf(await api.approve(stranger, 'i', change.id), 404)).code).toBe('unknown_install');
    const sv = await published(platform, stranger, changeModule('stranger-app', '1.0.0'));
    await ok(
      await api.install(stranger, { name: 'i', versionId: sv.id, enabled: false, approveHosts: [VENDOR] }),
      201,
    );
    for (const response of [
      await api.approve(stranger, 'i', change.id),
      await api.reject(stranger, 'i', change.id),
      await api.withdraw(stranger, 'i', change.id),
    ]) {
      expect((await errorOf(response, 404)).code).toBe('not_found');
    }
    expect((await errorOf(await api.approve(ada, 'other', change.id), 404)).code).toBe('not_found');
    expect((await errorOf(await api.approve(ada, 'i', crypto.randomUUID()), 404)).code).toBe('not_found');
    expect((await api.list(stranger)).items).toEqual([]);
    expect((await api.list(ada)).total).toBe(2);
  });

  it('removes an install’s changes with the install', async () => {
    const { ada, v1 } = await setUp('removal', { install: true });
    await heldSave(ada, 'i', v1.id, 'one');
    await heldSave(ada, 'i', v1.id, 'two');
    expect((await api.call('/app-installs/i', ada, 'DELETE')).status).toBe(204);
    expect(await api.list(ada)).toMatchObject({ items: [], total: 0 });
    expect(await api.list(ada, '?status=decided')).toMatchObject({ items: [], total: 0 });
    const [removed] = await api.auditOf(ada, 'app.uninstalled');
    expect(removed?.data).toMatchObject({ changesRemoved: 2 });
  });
});

describe('concurrency', () => {
  it('a decision and a save of one install take turns: neither update is lost', async () => {
    const { ada, grace, v1 } = await setUp('race', { install: true });
    for (let round = 0; round < 4; round += 1) {
      const { change } = await heldSave(ada, 'i', v1.id, `race${round}`);
      const note = { baseUrl: `https://race${round}.vendor.example`, note: `n${round}` };
      const approve = () => api.approve(grace, 'i', change.id);
      const saveNow = () =>
        api.save(ada, 'i', {
          versionId: v1.id,
          enabled: false,
          config: note,
          approveHosts: [`race${round}.vendor.example`],
        });
      // Sent together, the first sent usually takes the row lock first: alternate to see both orders.
      const [approval, save] =
        round % 2 === 0
          ? await Promise.all([approve(), saveNow()])
          : await Promise.all([saveNow(), approve()]).then(([s, a]) => [a, s] as const);
      const after = await api.installOf(ada, 'i');
      if (approval.status === 200) {
        // The approval went first; the save then applied on top of it (its host now approved).
        expect(save.status).toBe(200);
        expect(after.config).toEqual(note);
      } else {
        // The save went first and superseded the change (held: its host was not approved yet).
        expect(await errorOf(approval, 409)).toMatchObject({
          code: 'conflict',
          details: { decision: 'withdrawn' },
        });
        expect(save.status).toBe(202);
        expect(after.pendingChange?.config).toEqual(note);
      }
      const open = await api.list(ada, '?install=i');
      expect(open.total).toBeLessThanOrEqual(1);
      if (open.total === 1) await ok(await api.withdraw(ada, 'i', open.items[0]?.id as string));
    }
  });
});
