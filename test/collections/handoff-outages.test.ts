// The hand-off where the apps cannot run it: a deployment with apps off answers 409 handoff_unavailable
// (and the status no hand-off), a runner no call reaches 502 handoff_failed with nothing metered. The
// eligible state is written directly: a version that hands off, an enabled install, a waiting run and
// its pending session. docs/handoff.md.
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appMetering } from '../../src/calls/tables.ts';
import { appVersions } from '../../src/catalogue/tables.ts';
import { appInstalls } from '../../src/installs/tables.ts';
import type { Manifest } from '../../src/module/index.ts';
import { errorOf, ok } from '../installs/support.ts';
import { freePort } from '../support/free-port.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { insertRun, insertSession, newSubmission } from './support.ts';

/** An eligible hand-off in the platform's tenant `acme`: its submission (sent) and applicant token. */
async function eligibleHandoff(platform: TestPlatform) {
  const tenantId = await platform.tenantId();
  const [version] = await platform.database.db
    .insert(appVersions)
    .values({
      publisher: 'tenant',
      tenantId,
      name: 'idv-like',
      version: '1.0.0',
      status: 'published',
      sha256: 'a'.repeat(64),
      sizeBytes: 1,
      manifest: { secrets: [], handles: { webhook: true, handoff: true } } as unknown as Manifest,
    })
    .returning({ id: appVersions.id });
  const [install] = await platform.database.db
    .insert(appInstalls)
    .values({
      tenantId,
      name: 'idv',
      appName: 'idv-like',
      versionId: version?.id as string,
      enabled: true,
      config: {},
      hosts: ['idv.example.com'],
    })
    .returning({ id: appInstalls.id });
  const runId = await insertRun(platform.database, tenantId, 'subject-1');
  await insertSession(platform.database, tenantId, {
    runId,
    externalId: 'sess_1',
    installId: install?.id as string,
    versionId: version?.id as string,
  });
  const { submission, applicant } = await newSubmission(platform, await platform.token(), {
    id: runId,
    subjectId: 'subject-1',
  });
  return { submission, applicant, installId: install?.id as string };
}

describe('apps off: no runner', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform({ COLLECTION_FLOW_URL: 'https://flow.platform.example' });
  });
  afterAll(async () => platform?.close());

  it('answers 409 handoff_unavailable, and the status no hand-off', async () => {
    const { submission, applicant } = await eligibleHandoff(platform);
    const refused = await errorOf(
      await platform.fetch(`/collection-submissions/${submission.id}/handoff`, { token: applicant }),
      409,
    );
    expect(refused).toMatchObject({ code: 'handoff_unavailable', message: expect.stringMatching(/runner/) });
    expect(
      await ok(await platform.fetch(`/collection-submissions/${submission.id}/status`, { token: applicant })),
    ).toEqual({ id: submission.id, status: 'sent', handoff: false });
  });
});

describe('a runner no call reaches', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform({
      COLLECTION_FLOW_URL: 'https://flow.platform.example',
      // Nothing listens there: the call is never written to a connection (not_sent).
      APP_RUNNER_URL: `http://127.0.0.1:${await freePort()}`,
      APP_RUNNER_TOKEN: 'runner-token-nobody-checks',
    });
  });
  afterAll(async () => platform?.close());

  it('answers 502 handoff_failed naming the runner’s failure, and meters nothing (no module ran)', async () => {
    const { submission, applicant, installId } = await eligibleHandoff(platform);
    expect(
      await ok(await platform.fetch(`/collection-submissions/${submission.id}/status`, { token: applicant })),
    ).toEqual({ id: submission.id, status: 'sent', handoff: true });
    const failed = await errorOf(
      await platform.fetch(`/collection-submissions/${submission.id}/handoff`, { token: applicant }),
      502,
    );
    expect(failed).toMatchObject({ code: 'handoff_failed', details: { reason: 'not_sent' } });
    expect(
      await platform.database.db.select().from(appMetering).where(eq(appMetering.installId, installId)),
    ).toEqual([]);
  });

  it('answers 404 for the applicant of a submission that does not exist, 403 for anyone else', async () => {
    const id = randomUUID();
    const applicant = await platform.token({ kind: 'applicant', subject: id, roles: [] });
    expect(
      (
        await errorOf(
          await platform.fetch(`/collection-submissions/${id}/handoff`, { token: applicant }),
          404,
        )
      ).code,
    ).toBe('not_found');
    expect((await errorOf(await platform.fetch(`/collection-submissions/${id}/handoff`), 403)).code).toBe(
      'forbidden',
    );
  });
});
