import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { appReviews } from '../../src/catalogue/tables.ts';
import { tenants } from '../../src/tenants/tables.ts';
import { expectError } from '../http/expect.ts';
import { catalogueSuite } from './support.ts';

const suite = catalogueSuite();
const act = suite.act;

const as = (tenant: string, user?: string, roles?: string[]) => act.as(tenant, user, roles);
const uploaded = (tenant: string, name: string, version: string) => act.uploaded(tenant, name, version);
const post = (path: string, token: string, json?: unknown) => act.post(path, token, json);
const requireApprovals = (tenant: string, fourEyes = true) => act.requireApprovals(tenant, fourEyes);

describe('publish', () => {
  it('publishes at once when the tenant requires no approval, audited app.published', async () => {
    const v = await uploaded('direct', 'screen', '1.0.0');
    const token = await as('direct');
    const response = await post(`/apps/screen/versions/${v.id}/publish`, token);
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.version).toMatchObject({ id: v.id, status: 'published', publishedAt: expect.any(String) });
    const audit = await (await suite.platform.fetch('/audit-events?action=app.published', { token })).json();
    expect(audit.items[0]).toMatchObject({
      resource: { id: v.id },
      data: { name: 'screen', version: '1.0.0' },
    });
    await act.refused(v.id, 409, 'conflict', () => post(`/apps/screen/versions/${v.id}/publish`, token));
  });

  it('answers 404 for another tenant’s version and for an unknown id', async () => {
    const v = await uploaded('owner', 'private-app', '1.0.0');
    const stranger = await as('stranger');
    for (const path of [
      `/apps/private-app/versions/${v.id}/publish`,
      `/apps/private-app/versions/${crypto.randomUUID()}/publish`,
    ]) {
      await act.refused(v.id, 404, 'not_found', () => post(path, stranger));
    }
    await expectError(await suite.platform.fetch('/apps/private-app', { token: stranger }), 404, 'not_found');
    expect(
      (await (await suite.platform.fetch('/apps', { token: stranger })).json()).items.map(
        (a: { name: string }) => a.name,
      ),
    ).not.toContain('private-app');
  });
});

describe('approvals', () => {
  it('opens a request under required approvals, notifies holders of apps:publish, and four-eyes refuses the requester', async () => {
    await requireApprovals('careful');
    const v = await uploaded('careful', 'kyc', '1.0.0');
    const requester = await as('careful', 'ada');
    const publish = await post(`/apps/kyc/versions/${v.id}/publish`, requester);
    expect(publish.status).toBe(202);
    const body = await publish.json();
    expect(body.version.status).toBe('uploaded');
    expect(body.approval).toMatchObject({
      versionId: v.id,
      status: 'pending',
      fourEyes: true,
      requestedBy: 'user:ada',
      name: 'kyc',
    });

    const approver = await as('careful', 'grace');
    const notes = await (await suite.platform.fetch('/notifications', { token: approver })).json();
    expect(notes.items[0]).toMatchObject({
      kind: 'approval_requested',
      resource: { type: 'app_version', id: v.id },
      read: false,
    });
    const analystNotes = await (
      await suite.platform.fetch('/notifications', { token: await as('careful', 'ann', ['analyst']) })
    ).json();
    expect(analystNotes.total).toBe(0);

    const open = await (await suite.platform.fetch('/apps/approvals', { token: approver })).json();
    expect(open.items.map((a: { id: string }) => a.id)).toEqual([body.approval.id]);
    await act.refused(v.id, 409, 'conflict', () => post(`/apps/kyc/versions/${v.id}/publish`, requester));
    await act.refused(v.id, 403, 'four_eyes', () =>
      post(`/apps/kyc/versions/${v.id}/approve`, requester, {}),
    );

    const approved = await post(`/apps/kyc/versions/${v.id}/approve`, approver, { comment: 'looks right' });
    expect(approved.status).toBe(200);
    const decided = await approved.json();
    expect(decided.version.status).toBe('published');
    expect(decided.approval).toMatchObject({
      status: 'approved',
      decidedBy: 'user:grace',
      comment: 'looks right',
    });
    const audit = await (
      await suite.platform.fetch('/audit-events?action=app.published', { token: approver })
    ).json();
    expect(audit.items[0].data.approvalId).toBe(body.approval.id);
    const decidedList = await (
      await suite.platform.fetch('/apps/approvals?open=false', { token: approver })
    ).json();
    expect(decidedList.items[0]).toMatchObject({ id: body.approval.id, status: 'approved' });

    await act.refused(v.id, 409, 'conflict', () => post(`/apps/kyc/versions/${v.id}/approve`, approver, {}));
  });

  it('lets the requester approve when four-eyes is off', async () => {
    await requireApprovals('solo', false);
    const v = await uploaded('solo', 'screen', '1.0.0');
    const ada = await as('solo');
    expect((await post(`/apps/screen/versions/${v.id}/publish`, ada)).status).toBe(202);
    expect((await post(`/apps/screen/versions/${v.id}/approve`, ada, {})).status).toBe(200);
  });

  it('rejects with a comment, leaving the version uploaded and publishable again', async () => {
    await requireApprovals('picky');
    const v = await uploaded('picky', 'screen', '1.0.0');
    await post(`/apps/screen/versions/${v.id}/publish`, await as('picky', 'ada'));
    const rejected = await post(`/apps/screen/versions/${v.id}/reject`, await as('picky', 'grace'), {
      comment: 'no',
    });
    expect(rejected.status).toBe(200);
    expect((await rejected.json()).approval).toMatchObject({ status: 'rejected', comment: 'no' });
    const grace = await as('picky', 'grace');
    await act.refused(v.id, 409, 'conflict', () => post(`/apps/screen/versions/${v.id}/reject`, grace, {}));
    expect((await post(`/apps/screen/versions/${v.id}/publish`, await as('picky', 'ada'))).status).toBe(202);
  });

  it('decides two concurrent approvals once: one 200, one 409', async () => {
    await requireApprovals('busy');
    const v = await uploaded('busy', 'screen', '1.0.0');
    await post(`/apps/screen/versions/${v.id}/publish`, await as('busy', 'ada'));
    const [a, b] = await Promise.all([
      post(`/apps/screen/versions/${v.id}/approve`, await as('busy', 'grace'), {}),
      post(`/apps/screen/versions/${v.id}/approve`, await as('busy', 'linus'), {}),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const loser = (await (a.status === 409 ? a : b).json()).error;
    expect(loser.code).toBe('conflict');
    await (a.status === 200 ? a : b).text();
    const audit = await (
      await suite.platform.fetch('/audit-events?action=app.published', { token: await as('busy') })
    ).json();
    expect(audit.total).toBe(1);
  });

  it('refuses approving or rejecting without an open request', async () => {
    const v = await uploaded('idle', 'screen', '1.0.0');
    const token = await as('idle');
    for (const action of ['approve', 'reject'])
      await act.refused(v.id, 409, 'conflict', () =>
        post(`/apps/screen/versions/${v.id}/${action}`, token, {}),
      );
  });
});

describe('without apps:publish', () => {
  it('refuses publish, approve, reject and withdraw with 403 forbidden, changing nothing', async () => {
    await requireApprovals('guarded', false);
    const fresh = await uploaded('guarded', 'screen', '1.0.0');
    const requested = await uploaded('guarded', 'screen', '1.1.0');
    expect((await post(`/apps/screen/versions/${requested.id}/publish`, await as('guarded'))).status).toBe(
      202,
    );
    const readers = [
      await as('guarded', 'ann', ['analyst']),
      await suite.platform.token({
        tenant: 'guarded',
        user: 'wes',
        roles: [],
        permissions: ['apps:read', 'apps:write'],
      }),
    ];
    for (const token of readers) {
      const calls: [string, () => Promise<Response>][] = [
        [fresh.id, () => post(`/apps/screen/versions/${fresh.id}/publish`, token)],
        [requested.id, () => post(`/apps/screen/versions/${requested.id}/approve`, token, {})],
        [requested.id, () => post(`/apps/screen/versions/${requested.id}/reject`, token, {})],
        [
          requested.id,
          () => suite.platform.fetch(`/apps/screen/versions/${requested.id}`, { method: 'DELETE', token }),
        ],
        [
          fresh.id,
          () => suite.platform.fetch(`/apps/screen/versions/${fresh.id}`, { method: 'DELETE', token }),
        ],
      ];
      for (const [id, call] of calls) {
        const error = await act.refused(id, 403, 'forbidden', call);
        expect(error.details).toEqual({ permission: 'apps:publish' });
      }
    }
  });
});

describe('operator review', () => {
  it('opens the operator’s review when the tenant is under review, shown on the version', async () => {
    const v = await uploaded('reviewed', 'screen', '1.0.0');
    await suite.platform.database.db
      .update(tenants)
      .set({ appReview: 'required' })
      .where(eq(tenants.name, 'reviewed'));
    const token = await as('reviewed');
    const response = await post(`/apps/screen/versions/${v.id}/publish`, token);
    expect(response.status).toBe(202);
    expect((await response.json()).review).toMatchObject({
      versionId: v.id,
      status: 'pending',
      decidedBy: null,
    });
    const versions = await (await suite.platform.fetch('/apps/screen/versions', { token })).json();
    expect(versions.items[0].review).toMatchObject({ status: 'pending' });
    await act.refused(v.id, 409, 'conflict', () => post(`/apps/screen/versions/${v.id}/publish`, token));
  });
});

describe('withdraw', () => {
  it('withdraws a version with its open request, audited with the approval id', async () => {
    await requireApprovals('retract');
    const v = await uploaded('retract', 'screen', '1.0.0');
    const token = await as('retract');
    const request = await (await post(`/apps/screen/versions/${v.id}/publish`, token)).json();
    const response = await suite.platform.fetch(`/apps/screen/versions/${v.id}`, { method: 'DELETE', token });
    expect(response.status).toBe(200);
    expect((await response.json()).status).toBe('withdrawn');
    const approvals = await (await suite.platform.fetch('/apps/approvals?open=false', { token })).json();
    expect(approvals.items[0]).toMatchObject({ id: request.approval.id, status: 'withdrawn' });
    const audit = await (await suite.platform.fetch('/audit-events?action=app.withdrawn', { token })).json();
    expect(audit.items[0].data).toMatchObject({ approvalId: request.approval.id, reviewId: null });
    await act.refused(v.id, 409, 'conflict', () =>
      suite.platform.fetch(`/apps/screen/versions/${v.id}`, { method: 'DELETE', token }),
    );
  });

  it('withdraws the pending review too', async () => {
    const v = await uploaded('retract-review', 'screen', '1.0.0');
    await suite.platform.database.db
      .update(tenants)
      .set({ appReview: 'required' })
      .where(eq(tenants.name, 'retract-review'));
    const token = await as('retract-review');
    await post(`/apps/screen/versions/${v.id}/publish`, token);
    await suite.platform.fetch(`/apps/screen/versions/${v.id}`, { method: 'DELETE', token });
    const [review] = await suite.platform.database.db
      .select()
      .from(appReviews)
      .where(eq(appReviews.versionId, v.id));
    expect(review?.status).toBe('withdrawn');
  });
});

describe('reading', () => {
  it('lists versions by semantic precedence and picks the latest per the rules', async () => {
    const token = await as('orderly');
    const ids: Record<string, string> = {};
    for (const version of ['1.9.0', '1.10.0', '1.10.0-rc.1', '2.0.0-alpha.1']) {
      ids[version] = (await uploaded('orderly', 'ordered', version)).id;
    }
    const listed = await (await suite.platform.fetch('/apps/ordered/versions', { token })).json();
    expect(listed.items.map((v: { version: string }) => v.version)).toEqual([
      '2.0.0-alpha.1',
      '1.10.0',
      '1.10.0-rc.1',
      '1.9.0',
    ]);
    // Nothing published: the latest is the highest of any status.
    let app = await (await suite.platform.fetch('/apps/ordered', { token })).json();
    expect(app.latest.version).toBe('2.0.0-alpha.1');
    await post(`/apps/ordered/versions/${ids['2.0.0-alpha.1']}/publish`, token);
    app = await (await suite.platform.fetch('/apps/ordered', { token })).json();
    expect(app.latest.version).toBe('2.0.0-alpha.1'); // a prerelease only while no release is published
    await post(`/apps/ordered/versions/${ids['1.9.0']}/publish`, token);
    app = await (await suite.platform.fetch('/apps/ordered', { token })).json();
    expect(app.latest.version).toBe('1.9.0');
    expect(app).toMatchObject({
      name: 'ordered',
      publisher: 'tenant',
      versions: 4,
      installs: [],
      signatures: 'off',
    });
    expect(app.items).toHaveLength(4);
    const all = await (await suite.platform.fetch('/apps', { token })).json();
    expect(all.signatures).toBe('off');
    expect(all.items.find((a: { name: string }) => a.name === 'ordered').latest.version).toBe('1.9.0');
  });

  it('shows uploaded versions only to the tenant’s administrators', async () => {
    const v = await uploaded('mixed', 'half', '1.0.0');
    await uploaded('mixed', 'half', '1.1.0');
    await post(`/apps/half/versions/${v.id}/publish`, await as('mixed'));
    const analyst = await as('mixed', 'ann', ['analyst']);
    const seen = await (await suite.platform.fetch('/apps/half/versions', { token: analyst })).json();
    expect(seen.items.map((x: { version: string }) => x.version)).toEqual(['1.0.0']);
  });
});

describe('provenance while APP_SIGNATURES is off (the default)', () => {
  it('PUT …/provenance answers 404 signatures_off and records nothing', async () => {
    const v = await uploaded('unsigned-deployment', 'plain', '1.0.0');
    const token = await as('unsigned-deployment');
    const error = await act.refused(v.id, 404, 'signatures_off', () =>
      suite.platform.fetch(`/apps/plain/versions/${v.id}/provenance`, {
        method: 'PUT',
        token,
        json: { mediaType: 'application/vnd.dev.sigstore.bundle.v0.3+json' },
      }),
    );
    expect(error.message).toBe('APP_SIGNATURES is off: this deployment takes no bundle');
  });
});
