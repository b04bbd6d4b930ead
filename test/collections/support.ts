// Hand-off tests' world: the real api and runner with the release's identity-verification app installed
// against a sessions API double on 127.0.0.1 (a private-network stack, which the api and runner agree
// on), and the state a run's vendor sessions leave, written directly: a run waiting on a callback and
// its pending sessions (the run path that writes them is its own issue).
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import {
  startVendorDouble,
  type VendorAnswer,
  type VendorDouble,
} from '../../packages/app-testing/src/index.ts';
import { appVersions } from '../../src/catalogue/tables.ts';
import type { Database } from '../../src/db/pool.ts';
import type { RunStatus } from '../../src/runs/model.ts';
import { workflowRuns } from '../../src/runs/tables.ts';
import { appCallbacks } from '../../src/vendor-sessions/tables.ts';
import { type CataloguePlatform, startCataloguePlatform } from '../catalogue/support.ts';
import { ok, SECRET_KEY_HEX } from '../installs/support.ts';
import type { TestPlatform } from '../support/platform.ts';

export const API_KEY = 'idv-live-key-handoff-5c1d';
export const WEBHOOK_SECRET = 'whsec-idv-handoff-77e2';
export const EXPIRES_AT = '2030-01-01T12:00:00Z';
export const DEPLOYMENT_FLOW_URL = 'https://flow.platform.example';
/** A second host of the vendor's hosted pages (identity-verification's hostedPageUrl). */
export const PAGES_HOST = 'pages.idv.example';
const RELEASE_INDEX = path.resolve(import.meta.dirname, '../../apps/build/release.json');

/** What the double answers for a session's page: its status and page, or a failure. */
export interface VendorSession {
  status: string;
  /** The page it answers; absent: `<double>/hosted/<id>` (on the approved baseUrl host). */
  url?: string;
  failure?: VendorAnswer;
}

export interface HandoffWorld {
  platform: CataloguePlatform;
  vendor: VendorDouble;
  /** The vendor's sessions by id, as GET /v1/sessions/:id answers them. */
  sessions: Map<string, VendorSession>;
  admin: string;
  tenantId: string;
  versionId: string;
  installId: string;
  close(): Promise<void>;
}

/** The platform (tenant `acme`) with identity-verification installed as `idv`, enabled, secrets stored. */
export async function startHandoffWorld(): Promise<HandoffWorld> {
  const platform = await startCataloguePlatform({
    SECRET_STORE_KEY: SECRET_KEY_HEX,
    APP_RUNNER_ALLOW_PRIVATE_NETWORKS: 'true',
    RELEASE_INDEX,
    COLLECTION_FLOW_URL: DEPLOYMENT_FLOW_URL,
  });
  const sessions = new Map<string, VendorSession>();
  const vendor = await startVendorDouble([
    {
      method: 'GET',
      path: '/v1/sessions/:id',
      respond: (request) => {
        const id = request.params.id ?? '';
        const session = sessions.get(id);
        if (!session) return { status: 404, json: { message: 'no such session' } };
        if (session.failure) return session.failure;
        const url =
          session.url ??
          `${vendor.url}/hosted/${id}?redirect=${encodeURIComponent(request.query.redirectUrl ?? '')}`;
        return { json: { id, status: session.status, url, expiresAt: EXPIRES_AT } };
      },
    },
  ]);
  const admin = await platform.token();
  const tenantId = await platform.tenantId();
  const versions = await ok<{ items: { id: string }[] }>(
    await platform.fetch('/apps/identity-verification/versions', { token: admin }),
  );
  const versionId = versions.items[0]?.id as string;
  const config = { baseUrl: vendor.url, hostedPageUrl: `https://${PAGES_HOST}/`, documentsEnabled: false };
  const created = await ok<{ id: string }>(
    await platform.fetch('/app-installs', {
      method: 'POST',
      token: admin,
      json: { name: 'idv', versionId, enabled: false, config, approveHosts: [vendor.host, PAGES_HOST] },
    }),
    201,
  );
  for (const [name, value] of [
    ['API_KEY', API_KEY],
    ['WEBHOOK_SECRET', WEBHOOK_SECRET],
  ]) {
    await ok(
      await platform.fetch(`/app-installs/idv/secrets/${name}`, {
        method: 'POST',
        token: admin,
        json: { value },
      }),
    );
  }
  await ok(
    await platform.fetch('/app-installs/idv', {
      method: 'PUT',
      token: admin,
      json: { versionId, enabled: true, config },
    }),
  );
  return {
    platform,
    vendor,
    sessions,
    admin,
    tenantId,
    versionId,
    installId: created.id,
    async close() {
      await vendor.close();
      await platform.close();
    },
  };
}

/** A run of `subjectId` in the tenant, as the run path leaves it (waiting on a callback by default). */
export async function insertRun(
  database: Database,
  tenantId: string,
  subjectId: string,
  status: RunStatus = 'waiting_callback',
): Promise<string> {
  const [run] = await database.db
    .insert(workflowRuns)
    .values({
      tenantId,
      definitionId: randomUUID(),
      definitionVersionId: randomUUID(),
      workflowKey: 'kyc',
      version: 1,
      subjectId,
      status,
      context: {},
      createdBy: 'user:ada',
    })
    .returning({ id: workflowRuns.id });
  return run?.id as string;
}

export interface SessionRow {
  runId: string;
  externalId: string;
  installId: string;
  versionId: string;
  /** Distinct per session of a run (one session per run step). */
  stepId?: string;
  status?: 'pending' | 'completed' | 'failed' | 'timed_out';
  /** Older sessions first: a later createdAt is newer. */
  createdAt?: Date;
}

/** A vendor session of the run, as a call_app step's pending answer leaves it. */
export async function insertSession(database: Database, tenantId: string, row: SessionRow): Promise<string> {
  const [session] = await database.db
    .insert(appCallbacks)
    .values({
      tenantId,
      installId: row.installId,
      installName: 'idv',
      versionId: row.versionId,
      action: 'start_verification',
      externalId: row.externalId,
      workflowRunId: row.runId,
      stepId: row.stepId ?? `verify-${row.externalId}`,
      status: row.status ?? 'pending',
      ...(row.createdAt ? { createdAt: row.createdAt } : {}),
    })
    .returning({ id: appCallbacks.id });
  return session?.id as string;
}

/** The id of the release's version of another app (one that declares no hand-off). */
export async function versionIdOf(database: Database, name: string): Promise<string> {
  const [row] = await database.db
    .select({ id: appVersions.id })
    .from(appVersions)
    .where(eq(appVersions.name, name));
  return row?.id as string;
}

export interface Submission {
  id: string;
  status: 'open' | 'sent';
  workflowRunId: string;
  subjectId: string;
  sentAt: string | null;
}

/** A submission of the run created (and sent, unless told) by `token`, with its applicant's token. */
export async function newSubmission(
  platform: TestPlatform,
  token: string,
  run: { id: string; subjectId: string },
  options: { send?: boolean; tenant?: string } = {},
): Promise<{ submission: Submission; applicant: string }> {
  let submission = await ok<Submission>(
    await platform.fetch('/collection-submissions', {
      method: 'POST',
      token,
      json: { subjectId: run.subjectId, workflowRunId: run.id },
    }),
    201,
  );
  if (options.send ?? true) {
    submission = await ok<Submission>(
      await platform.fetch(`/collection-submissions/${submission.id}/send`, { method: 'POST', token }),
    );
  }
  const applicant = await applicantToken(platform, submission.id, options.tenant);
  return { submission, applicant };
}

/** The token of a submission's link: kind applicant, sub the submission's id, no roles. */
export const applicantToken = (platform: TestPlatform, submissionId: string, tenant = 'acme') =>
  platform.token({ tenant, kind: 'applicant', subject: submissionId, user: 'applicant', roles: [] });
