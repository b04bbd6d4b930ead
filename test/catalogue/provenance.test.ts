// PUT /apps/:name/versions/:id/provenance and the gates of APP_SIGNATURES=required (docs/provenance.md),
// against the real api and runner, with bundles signed by local Fulcio, Rekor and timestamp services.
import crypto from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appVersions } from '../../src/catalogue/tables.ts';
import { capMemory } from '../../src/module/index.ts';
import { tenants } from '../../src/tenants/tables.ts';
import { expectError } from '../http/expect.ts';
import { publishPlatformApp } from '../installs/support.ts';
import {
  type LocalSigstore,
  type P256Key,
  p256Key,
  startLocalSigstore,
  TEST_ISSUER,
} from '../support/sigstore.ts';
import { appModule, type CataloguePlatform, catalogueActions, startCataloguePlatform } from './support.ts';

const CI = 'https://github.com/acme/**';
let sigstore: LocalSigstore;
let platform: CataloguePlatform;
let releaseKey: P256Key;
const act = catalogueActions(() => platform);

beforeAll(async () => {
  sigstore = await startLocalSigstore();
  releaseKey = p256Key();
  platform = await startCataloguePlatform({
    APP_SIGNATURES: 'required',
    APP_TRANSPARENCY_TRUSTED_ROOTS: sigstore.rootPath,
    APP_TRUSTED_SIGNERS: JSON.stringify([
      { name: 'acme-ci', issuer: TEST_ISSUER, identity: CI },
      { name: 'release-key', publicKey: releaseKey.publicKeyPem },
    ]),
  });
}, 120_000);
afterAll(async () => {
  await platform?.close();
  await sigstore?.close();
});

interface Uploaded {
  id: string;
  name: string;
  bytes: Uint8Array;
}

async function upload(tenant: string, name: string, version = '1.0.0'): Promise<Uploaded> {
  // Signed as `app build` leaves a module: carrying its memory cap, so the platform stores it unchanged.
  const capped = capMemory(await appModule(name, version), 64);
  if (!capped.ok) throw new Error(capped.message);
  const bytes = capped.bytes;
  const response = await platform.upload(bytes, await act.as(tenant));
  expect(response.status).toBe(201);
  const summary = (await response.json()) as { id: string; name: string; sha256: string };
  expect(summary.sha256).toBe(crypto.createHash('sha256').update(bytes).digest('hex'));
  return { ...summary, bytes };
}

const attach = async (tenant: string, v: Pick<Uploaded, 'id' | 'name'>, bundle: unknown) =>
  platform.fetch(`/apps/${v.name}/versions/${v.id}/provenance`, {
    method: 'PUT',
    token: await act.as(tenant),
    json: bundle,
  });

const ACME = 'https://github.com/acme/kyc/.github/workflows/release.yml@refs/heads/main';

describe('PUT /apps/:name/versions/:id/provenance', () => {
  it('records a trusted keyless signature: signer, source, log entry, time; trustedSigner the policy name', async () => {
    const v = await upload('prov-a', 'signed-app');
    const bundle = await sigstore.keyless(v.bytes, { identity: ACME, repository: 'acme/kyc' });
    const response = await attach('prov-a', v, bundle);
    expect(response.status).toBe(200);
    const summary = await response.json();
    expect(summary).toMatchObject({ id: v.id, status: 'uploaded' });
    expect(summary.provenance).toEqual({
      kind: 'signature',
      signer: { kind: 'keyless', issuer: TEST_ISSUER, identity: ACME },
      source: 'https://github.com/acme/kyc',
      transparencyLog: {
        logId: expect.stringMatching(/^[0-9a-f]{64}$/),
        logIndex: expect.stringMatching(/^\d+$/),
        integratedTime: expect.any(String),
      },
      signedAt: summary.provenance.transparencyLog.integratedTime,
      trusted: true,
      trustedSigner: 'acme-ci',
    });
    const listed = await (
      await platform.fetch('/apps/signed-app/versions', { token: await act.as('prov-a') })
    ).json();
    expect(listed.items[0].provenance).toEqual(summary.provenance);
    const audit = await (
      await platform.fetch('/audit-events?action=app.provenance.attached', { token: await act.as('prov-a') })
    ).json();
    expect(audit.items[0]).toMatchObject({
      resource: { type: 'app_version', id: v.id },
      data: { name: 'signed-app', kind: 'signature', trusted: true, trustedSigner: 'acme-ci' },
    });
  });

  it('records an attestation and a key signature; an unnamed keyless signer replaces it with trusted false', async () => {
    const v = await upload('prov-b', 'attested-app');
    const attestation = await sigstore.keyless(v.bytes, { identity: ACME }, { attestation: true });
    const attested = await (await attach('prov-b', v, attestation)).json();
    expect(attested.provenance).toMatchObject({
      kind: 'attestation',
      trusted: true,
      trustedSigner: 'acme-ci',
    });
    const keyed = await (await attach('prov-b', v, await sigstore.withKey(v.bytes, releaseKey))).json();
    const keyId = `sha256:${crypto
      .createHash('sha256')
      .update(crypto.createPublicKey(releaseKey.publicKeyPem).export({ type: 'spki', format: 'der' }))
      .digest('hex')}`;
    expect(keyed.provenance).toMatchObject({
      kind: 'signature',
      signer: { kind: 'key', keyId },
      source: null,
      trusted: true,
      trustedSigner: 'release-key',
    });
    const stranger = await sigstore.keyless(v.bytes, { identity: 'mallory@evil.test' });
    const replaced = await (await attach('prov-b', v, stranger)).json();
    expect(replaced.provenance).toMatchObject({
      signer: { kind: 'keyless', issuer: TEST_ISSUER, identity: 'mallory@evil.test' },
      trusted: false,
      trustedSigner: null,
    });
  });

  it.each([
    ['a bundle for another module', 'digest_mismatch'],
    ['an attestation naming another module', 'digest_mismatch'],
    ['a bad signature', 'signature'],
    ['no timestamp and no log entry', 'signature'],
    ['a bundle of an unknown key', 'signature'],
    ['not a bundle', 'malformed'],
    ['an attestation of another payload type', 'unsupported'],
  ])('%s: 400 provenance_invalid, reason %s, nothing recorded', async (what, reason) => {
    const v = await upload('prov-c', `bad-${reason.replace('_', '-')}-${crypto.randomInt(1e6)}`);
    const other = await appModule('other-app', '9.9.9');
    const bundles: Record<string, () => Promise<unknown>> = {
      'a bundle for another module': () => sigstore.keyless(other, { identity: ACME }),
      'an attestation naming another module': () =>
        sigstore.keyless(other, { identity: ACME }, { attestation: true }),
      'a bad signature': async () => {
        const b = (await sigstore.keyless(v.bytes, { identity: ACME })) as {
          messageSignature: { signature: string };
        };
        const sig = Buffer.from(b.messageSignature.signature, 'base64');
        sig[sig.length - 1] = (sig[sig.length - 1] as number) ^ 1;
        return { ...b, messageSignature: { ...b.messageSignature, signature: sig.toString('base64') } };
      },
      'no timestamp and no log entry': () => sigstore.keyless(v.bytes, { identity: ACME }, { witnesses: [] }),
      'a bundle of an unknown key': () => sigstore.withKey(v.bytes, p256Key()),
      'not a bundle': async () => ({ mediaType: 'application/vnd.dev.sigstore.bundle.v0.3+json' }),
      'an attestation of another payload type': async () => {
        const b = (await sigstore.keyless(v.bytes, { identity: ACME }, { attestation: true })) as {
          dsseEnvelope: Record<string, unknown>;
        };
        return { ...b, dsseEnvelope: { ...b.dsseEnvelope, payloadType: 'text/plain' } };
      },
    };
    const bundle = await (bundles[what] as () => Promise<unknown>)();
    const error = await act.refused(v.id, 400, 'provenance_invalid', () => attach('prov-c', v, bundle));
    expect(error.details).toEqual({ reason });
  });

  it('a body that is not JSON: 400 provenance_invalid, reason malformed', async () => {
    const v = await upload('prov-c', 'not-json');
    const response = await fetch(`${platform.url}/apps/${v.name}/versions/${v.id}/provenance`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${await act.as('prov-c')}`, 'content-type': 'application/json' },
      body: '{"mediaType": ',
    });
    const error = await expectError(response, 400, 'provenance_invalid');
    expect(error.details).toEqual({ reason: 'malformed' });
  });

  it('another tenant’s version and an unknown id: 404 not_found', async () => {
    const v = await upload('prov-d', 'private-signed');
    const bundle = await sigstore.keyless(v.bytes, { identity: ACME });
    await act.refused(v.id, 404, 'not_found', () => attach('prov-e', v, bundle));
    await expectError(await attach('prov-d', { ...v, id: crypto.randomUUID() }, bundle), 404, 'not_found');
  });

  it('a published version or one with an open publish request: 409 provenance_locked', async () => {
    const v = await upload('prov-f', 'locked-app');
    const bundle = await sigstore.keyless(v.bytes, { identity: ACME });
    expect((await attach('prov-f', v, bundle)).status).toBe(200);
    await act.requireApprovals('prov-f', false);
    const held = await act.post(`/apps/locked-app/versions/${v.id}/publish`, await act.as('prov-f'));
    expect(held.status).toBe(202);
    const open = await act.refused(v.id, 409, 'provenance_locked', () => attach('prov-f', v, bundle));
    expect(open.details).toEqual({ reason: 'publish_request_open' });
    const approved = await act.post(`/apps/locked-app/versions/${v.id}/approve`, await act.as('prov-f'));
    expect(approved.status).toBe(200);
    const published = await act.refused(v.id, 409, 'provenance_locked', () => attach('prov-f', v, bundle));
    expect(published.details).toEqual({ reason: 'published' });
  });

  it('a version under the operator’s pending review or withdrawn: 409 provenance_locked', async () => {
    const reviewed = await upload('prov-g', 'reviewed-app');
    const bundle = await sigstore.keyless(reviewed.bytes, { identity: ACME });
    expect((await attach('prov-g', reviewed, bundle)).status).toBe(200);
    await platform.database.db
      .update(tenants)
      .set({ appReview: 'required' })
      .where(eq(tenants.name, 'prov-g'));
    const held = await act.post(`/apps/reviewed-app/versions/${reviewed.id}/publish`, await act.as('prov-g'));
    expect(held.status).toBe(202);
    const pending = await act.refused(reviewed.id, 409, 'provenance_locked', () =>
      attach('prov-g', reviewed, bundle),
    );
    expect(pending.details).toEqual({ reason: 'review_pending' });

    const gone = await upload('prov-h', 'withdrawn-app');
    const withdrawn = await platform.fetch(`/apps/withdrawn-app/versions/${gone.id}`, {
      method: 'DELETE',
      token: await act.as('prov-h'),
    });
    expect(withdrawn.status).toBe(200);
    const signed = await sigstore.keyless(gone.bytes, { identity: ACME });
    const refused = await act.refused(gone.id, 409, 'provenance_locked', () =>
      attach('prov-h', gone, signed),
    );
    expect(refused.details).toEqual({ reason: 'withdrawn' });
  });
});

describe('APP_SIGNATURES required', () => {
  it('publish without provenance: 409 provenance_required unsigned; untrusted: untrusted; trusted: 200', async () => {
    const v = await upload('gate-a', 'gated-app');
    const token = await act.as('gate-a');
    const publish = () => act.post(`/apps/gated-app/versions/${v.id}/publish`, token);
    const unsigned = await act.refused(v.id, 409, 'provenance_required', publish);
    expect(unsigned.details).toEqual({ reason: 'unsigned' });
    await attach('gate-a', v, await sigstore.keyless(v.bytes, { identity: 'mallory@evil.test' }));
    const untrusted = await act.refused(v.id, 409, 'provenance_required', publish);
    expect(untrusted.details).toEqual({ reason: 'untrusted' });
    await attach('gate-a', v, await sigstore.keyless(v.bytes, { identity: ACME }));
    const published = await publish();
    expect(published.status).toBe(200);
    expect((await published.json()).version).toMatchObject({ status: 'published' });
  });

  it('under required approvals the request does not open without a trusted signer', async () => {
    await act.requireApprovals('gate-b', false);
    const v = await upload('gate-b', 'gated-held');
    const error = await act.refused(v.id, 409, 'provenance_required', async () =>
      act.post(`/apps/gated-held/versions/${v.id}/publish`, await act.as('gate-b')),
    );
    expect(error.details).toEqual({ reason: 'unsigned' });
  });

  it('approving a request whose version lost its trusted signer since: 409 provenance_required, still open', async () => {
    await act.requireApprovals('gate-e', false);
    const v = await upload('gate-e', 'gated-approval');
    const token = await act.as('gate-e');
    await attach('gate-e', v, await sigstore.keyless(v.bytes, { identity: ACME }));
    expect((await act.post(`/apps/gated-approval/versions/${v.id}/publish`, token)).status).toBe(202);
    // As after a restart with a policy that no longer names the signer (trust is computed, never stored).
    const [row] = await platform.database.db
      .select({ provenance: appVersions.provenance })
      .from(appVersions)
      .where(eq(appVersions.id, v.id));
    const provenance = row?.provenance as { signer: Record<string, string> };
    await platform.database.db
      .update(appVersions)
      .set({ provenance: { ...provenance, signer: { ...provenance.signer, identity: 'mallory@evil.test' } } })
      .where(eq(appVersions.id, v.id));
    const approve = () => act.post(`/apps/gated-approval/versions/${v.id}/approve`, token);
    const refused = await act.refused(v.id, 409, 'provenance_required', approve);
    expect(refused.details).toEqual({ reason: 'untrusted' });
    const open = await (await platform.fetch('/apps/approvals', { token })).json();
    expect(open.items).toEqual([expect.objectContaining({ versionId: v.id, status: 'pending' })]);
  });

  it('a save moving an install to an unsigned version: 409 provenance_required; a trusted one saves', async () => {
    const token = await act.as('gate-d');
    const trusted = await upload('gate-d', 'moving-app', '1.0.0');
    await attach('gate-d', trusted, await sigstore.keyless(trusted.bytes, { identity: ACME }));
    expect((await act.post(`/apps/moving-app/versions/${trusted.id}/publish`, token)).status).toBe(200);
    const unsigned = await upload('gate-d', 'moving-app', '1.0.1');
    await platform.database.db
      .update(appVersions)
      .set({ status: 'published', publishedAt: new Date() })
      .where(eq(appVersions.id, unsigned.id));
    const save = (versionId: string) => ({ versionId, enabled: false, approveHosts: ['api.vendor.test'] });
    const created = await platform.fetch('/app-installs', {
      method: 'POST',
      token,
      json: { name: 'mover', ...save(trusted.id) },
    });
    expect(created.status).toBe(201);
    const put = (versionId: string) =>
      platform.fetch('/app-installs/mover', { method: 'PUT', token, json: save(versionId) });
    const refused = await expectError(await put(unsigned.id), 409, 'provenance_required');
    expect(refused.details).toEqual({ reason: 'unsigned' });
    expect((await put(trusted.id)).status).toBe(200);
  });

  it('installs a tenant version only with trusted provenance; platform versions install as they are', async () => {
    const token = await act.as('gate-c');
    const v = await upload('gate-c', 'untrusted-install');
    // A version published before the deployment required signatures.
    await platform.database.db
      .update(appVersions)
      .set({ status: 'published', publishedAt: new Date() })
      .where(eq(appVersions.id, v.id));
    const install = (versionId: string, name: string) =>
      platform.fetch('/app-installs', {
        method: 'POST',
        token,
        json: { name, versionId, enabled: false, approveHosts: ['api.vendor.test'] },
      });
    const refused = await expectError(await install(v.id, 'tenant-one'), 409, 'provenance_required');
    expect(refused.details).toEqual({ reason: 'unsigned' });
    const platformIds = await publishPlatformApp(platform, 'platform-unsigned', ['1.0.0']);
    const created = await install(platformIds.get('1.0.0') as string, 'platform-one');
    expect(created.status).toBe(201);
  });
});

describe('a trusted root that cannot be loaded', () => {
  let broken: CataloguePlatform;
  let token: string;
  beforeAll(async () => {
    broken = await startCataloguePlatform({
      APP_SIGNATURES: 'optional',
      APP_TRANSPARENCY_TRUSTED_ROOTS: '/nonexistent/trusted-root.json',
    });
    token = await broken.token({ tenant: 'prov-root', user: 'ada', roles: ['admin'] });
  }, 120_000);
  afterAll(async () => broken?.close());

  async function uploadBroken(version: string) {
    const capped = capMemory(await appModule('rootless-app', version), 64);
    if (!capped.ok) throw new Error(capped.message);
    const uploaded = await broken.upload(capped.bytes, token);
    expect(uploaded.status).toBe(201);
    return { ...((await uploaded.json()) as { id: string }), bytes: capped.bytes };
  }
  const put = (id: string, bundle: unknown) =>
    broken.fetch(`/apps/rootless-app/versions/${id}/provenance`, { method: 'PUT', token, json: bundle });
  const recorded = async (id: string) => {
    const [row] = await broken.database.db
      .select({ provenance: appVersions.provenance })
      .from(appVersions)
      .where(eq(appVersions.id, id));
    return row?.provenance;
  };

  it('PUT answers 503 provenance_unavailable and records nothing', async () => {
    const v = await uploadBroken('1.0.0');
    const bundle = await sigstore.keyless(v.bytes, { identity: ACME });
    await expectError(await put(v.id, bundle), 503, 'provenance_unavailable');
    expect(await recorded(v.id)).toBeNull();
  });

  it('still refuses first what needs no root: a malformed bundle, another module’s, a locked version', async () => {
    const v = await uploadBroken('1.1.0');
    const malformed = await expectError(
      await put(v.id, { mediaType: 'not a bundle' }),
      400,
      'provenance_invalid',
    );
    expect(malformed.details).toEqual({ reason: 'malformed' });
    const other = await uploadBroken('1.1.1');
    const elsewhere = await sigstore.keyless(other.bytes, { identity: ACME });
    const mismatch = await expectError(await put(v.id, elsewhere), 400, 'provenance_invalid');
    expect(mismatch.details).toEqual({ reason: 'digest_mismatch' });
    await expectError(await put(crypto.randomUUID(), elsewhere), 404, 'not_found');

    const published = await broken.fetch(`/apps/rootless-app/versions/${v.id}/publish`, {
      method: 'POST',
      token,
      json: {},
    });
    expect(published.status).toBe(200);
    const signed = await sigstore.keyless(v.bytes, { identity: ACME });
    const locked = await expectError(await put(v.id, signed), 409, 'provenance_locked');
    expect(locked.details).toEqual({ reason: 'published' });
    expect(await recorded(v.id)).toBeNull();
  });
});
