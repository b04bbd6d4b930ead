// The catalogue's answer schemas name every field its views write: Fastify serialises answers with
// them and drops any field they leave out, so a view with every optional part filled must pass them
// closed (additionalProperties: false), and the description's example must too.
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { describe, expect, it } from 'vitest';
import { uploadedExample } from '../../src/catalogue/examples.ts';
import { approvalView } from '../../src/catalogue/lifecycle.ts';
import { Approval, Review, VersionSummary } from '../../src/catalogue/schemas.ts';
import type { appPublishRequests, appReviews, appVersions } from '../../src/catalogue/tables.ts';
import { reviewView, versionSummary } from '../../src/catalogue/views.ts';
import { accepted, fullManifest, fullWith, minimalManifest } from '../module/manifests.ts';

const at = new Date('2026-11-24T08:00:00.000Z');
const VERSION_ID = '0f3c2a6e-8d1b-4c57-9a1e-2b7d5e4f6a10';
const TENANT_ID = '6b1d0c52-3f0e-4a7b-9c8d-1e2f3a4b5c6d';

/** Every field the manifest may hold, as the parser keeps it. */
const manifest = accepted(fullManifest());

const version: typeof appVersions.$inferSelect = {
  id: VERSION_ID,
  publisher: 'tenant',
  tenantId: TENANT_ID,
  platformSource: null,
  name: manifest.name,
  version: manifest.version,
  status: 'published',
  sha256: 'a'.repeat(64),
  sizeBytes: 1234,
  manifest,
  provenance: {
    kind: 'attestation',
    signer: { kind: 'keyless', issuer: 'https://issuer.test', identity: 'ci@acme.test' },
    source: 'https://github.com/acme/kyc',
    transparencyLog: { logId: 'ab'.repeat(32), logIndex: '7', integratedTime: at.toISOString() },
    signedAt: at.toISOString(),
  },
  uploadedBy: 'user-1',
  withdrawnByOperator: false,
  createdAt: at,
  publishedAt: at,
  withdrawnAt: null,
};

const decided = {
  id: '2c4e6a8b-0d1f-4a3b-8c5d-7e9f1a2b3c4d',
  tenantId: TENANT_ID,
  versionId: VERSION_ID,
  status: 'approved' as const,
  requestedBy: 'user-1',
  requestedAt: at,
  decidedBy: 'user-2',
  decidedAt: at,
  comment: 'fine',
};
const review: typeof appReviews.$inferSelect = decided;
const request: typeof appPublishRequests.$inferSelect = {
  ...decided,
  fourEyes: true,
  requestedByName: 'Ada',
};

const problems = (schema: TSchema, value: unknown) =>
  [...Value.Errors(schema, value)].map((e) => `${e.instancePath} ${e.message}`);

describe('catalogue answer schemas', () => {
  it('hold every field of a version summary with every optional part filled, and its review', () => {
    expect(problems(VersionSummary, versionSummary(version, review))).toEqual([]);
    expect(problems(Review, reviewView(review))).toEqual([]);
  });

  it('hold a version whose webhook external id the manifest names itself', () => {
    const named = accepted(
      fullWith((m) => {
        m.handles = { webhook: true, webhookExternalId: { header: 'x-session' }, handoff: false };
      }),
    );
    expect(problems(VersionSummary, versionSummary({ ...version, manifest: named }))).toEqual([]);
  });

  it('hold a platform version of the least manifest, without review or provenance', () => {
    const bare = accepted(minimalManifest());
    const platform = {
      ...version,
      publisher: 'platform' as const,
      tenantId: null,
      platformSource: 'release' as const,
    };
    expect(
      problems(VersionSummary, versionSummary({ ...platform, manifest: bare, provenance: null })),
    ).toEqual([]);
  });

  it('hold every field of a publish request', () => {
    expect(problems(Approval, approvalView(request, version))).toEqual([]);
  });

  it('hold the upload example the description shows', () => {
    expect(problems(VersionSummary, uploadedExample)).toEqual([]);
  });
});
