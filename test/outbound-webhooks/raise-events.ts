// Raises every outbound webhook event this repository writes, each through its real writer on a real
// platform (the runs stack: api, runner, a DBOS worker, http-connector against a vendor double): runs
// that decide, complete and fail, an install's circuit opening, definition approvals asked and decided,
// an install change held for approval and approved onto another version, an operator's block and review,
// a tenant's quota refusing a call, and an applicant asking for a new link. The audit rows they leave are
// what the trail reader turns into deliveries (fanout.ts): test/outbound-webhooks/event-samples.test.ts
// compares each with its sample.

import { setTenantQuota } from '../../src/calls/tenant-quotas.ts';
import { setBlock } from '../../src/catalogue/operator-blocks.ts';
import { decideReview, setTenantReview } from '../../src/catalogue/reviews.ts';
import { runningInstalls } from '../../src/installs/index.ts';
import { appModule } from '../catalogue/support.ts';
import { changeModule } from '../installs/changes-support.ts';
import { ok, published } from '../installs/support.ts';
import { decideOnly } from '../runs/approvals-support.ts';
import {
  finishedRun,
  installConnector,
  publishDefinition,
  type RunsStack,
  requestStep,
} from '../runs/stack.ts';

const OPERATOR = 'grace';

/** A run that decides (decision.emitted) and completes (workflow.run.completed). */
async function decidingRun(stack: RunsStack, tenantId: string) {
  await publishDefinition(stack, tenantId, 'workflow', 'decides', {
    steps: [
      {
        id: 'decide',
        type: 'decide',
        branches: [{ when: { path: 'score', gte: 50 }, outcome: 'review', riskScore: 62 }],
        otherwise: 'approve',
      },
    ],
  });
  const run = await finishedRun(stack, 'decides', { score: 62 });
  if (run.status !== 'completed') throw new Error(`the deciding run ended ${run.status}`);
}

/** An outage opening the circuit at its first failure (app.circuit.opened), failing the run (workflow.run.failed). */
async function outageRun(stack: RunsStack, tenantId: string, admin: string) {
  await installConnector(stack, 'primary', { token: admin });
  await ok(
    await stack.platform.fetch('/app-installs/primary/circuit', {
      method: 'PUT',
      token: admin,
      json: { failureThreshold: 1, openSeconds: 30 },
    }),
  );
  await publishDefinition(stack, tenantId, 'workflow', 'screens', {
    steps: [requestStep('primary', '/check', { retry: { maxAttempts: 1 } })],
  });
  stack.vendor.outage({ mode: 'unavailable' });
  try {
    const run = await finishedRun(stack, 'screens');
    if (run.status !== 'failed') throw new Error(`the outage run ended ${run.status}`);
  } finally {
    stack.vendor.recover();
  }
}

/**
 * Approvals for definitions and apps (no four-eyes): a definition's publish held and approved
 * (definition.approval.requested, .approved), then an install's save adding a host and moving to another
 * version held (app.install.change.requested) and approved (app.install.upgraded).
 */
async function approvedChanges(stack: RunsStack, admin: string, other: string) {
  const call = (path: string, token: string, method: string, json?: unknown) =>
    stack.platform.fetch(path, { method, token, ...(json === undefined ? {} : { json }) });
  const v1 = await published(stack.platform, admin, changeModule('mover', '1.0.0'));
  const v2 = await published(stack.platform, admin, changeModule('mover', '1.1.0'));
  await ok(
    await call('/app-installs', admin, 'POST', {
      name: 'mover',
      versionId: v1.id,
      // Disabled: its API_KEY is never stored, nothing calls it.
      enabled: false,
      config: { baseUrl: 'https://a.vendor.example' },
      approveHosts: ['api.vendor.test', 'a.vendor.example'],
    }),
    201,
  );
  await ok(
    await call('/tenants/me/settings', admin, 'PUT', {
      approvals: { required: true, requiredFor: ['definitions', 'app'], fourEyes: false },
      collection: { flowUrl: null },
    }),
  );
  await ok(
    await call('/workflow-definitions', admin, 'POST', {
      key: 'held',
      body: decideOnly(),
    }),
    201,
  );
  const held = await ok<{ approval: { id: string } }>(
    await call('/workflow-definitions/held/publish', admin, 'POST'),
    202,
  );
  await ok(
    await call(`/definition-approvals/${held.approval.id}/approve`, other, 'POST', { comment: 'Checked' }),
  );
  const saved = await ok<{ change: { id: string } }>(
    await call('/app-installs/mover', admin, 'PUT', {
      versionId: v2.id,
      enabled: false,
      config: { baseUrl: 'https://b.vendor.example' },
      approveHosts: ['b.vendor.example'],
      comment: 'the vendor moved',
    }),
    202,
  );
  await ok(await call(`/app-installs/mover/changes/${saved.change.id}/approve`, other, 'POST', {}));
  return v2;
}

/** An operator's review of a tenant's version, approved (app.review.decided). */
async function decidedReview(stack: RunsStack) {
  const token = await stack.platform.token({ tenant: 'reviewed' });
  const tenantId = await stack.platform.tenantId('reviewed');
  await setTenantReview(stack.platform.database, tenantId, 'required', OPERATOR);
  const upload = await stack.platform.upload(await appModule('risk-notes', '0.4.0'), token);
  const version = await ok<{ id: string }>(upload, 201);
  const asked = await ok<{ review: { id: string } }>(
    await stack.platform.fetch(`/apps/risk-notes/versions/${version.id}/publish`, { method: 'POST', token }),
    202,
  );
  await decideReview(stack.platform.database, {
    reviewId: asked.review.id,
    decision: 'approved',
    by: OPERATOR,
    comment: 'fine',
  });
}

/** The operator's quota of the tenant used up: a test call is refused (app.quota.exceeded). */
async function refusedByQuota(stack: RunsStack, tenantId: string, admin: string) {
  await setTenantQuota(
    stack.platform.database.db,
    tenantId,
    { metric: 'calls', period: 'day', max: 0 },
    { type: 'operator', id: OPERATOR, name: OPERATOR },
  );
  const refused = await stack.platform.fetch('/app-installs/primary/test', {
    method: 'POST',
    token: admin,
    json: { action: 'request', input: { method: 'GET', path: '/check' } },
  });
  if (refused.status !== 429) throw new Error(`the capped call answered ${refused.status}`);
}

/** An applicant whose link expired asks for a new one (collection.submission.link_requested). */
async function linkRequested(stack: RunsStack, admin: string) {
  const run = await finishedRun(stack, 'decides', { score: 1 });
  const submission = await ok<{ id: string }>(
    await stack.platform.fetch('/collection-submissions', {
      method: 'POST',
      token: admin,
      json: { subjectId: 'subject-1', workflowRunId: run.id },
    }),
    201,
  );
  await ok(
    await stack.platform.fetch(`/collection-submissions/${submission.id}/send`, {
      method: 'POST',
      token: admin,
    }),
  );
  const expired = await stack.platform.token({
    kind: 'applicant',
    subject: submission.id,
    roles: [],
    expiresIn: Math.floor(Date.now() / 1000) - 60,
  });
  await ok(
    await stack.platform.fetch(`/collection-submissions/${submission.id}/link-requests`, {
      method: 'POST',
      token: expired,
    }),
    202,
  );
}

/** Raises them all, in an order where none stands in another's way (blocks and quotas last). */
export async function raiseEveryEvent(stack: RunsStack): Promise<void> {
  const tenantId = await stack.platform.tenantId();
  const admin = await stack.platform.token();
  const other = await stack.platform.token({ user: 'grace-admin' });
  await decidingRun(stack, tenantId);
  await outageRun(stack, tenantId, admin);
  await linkRequested(stack, admin);
  const moved = await approvedChanges(stack, admin, other);
  await setBlock(stack.platform.database, runningInstalls, {
    target: { sha256: moved.sha256 },
    reason: 'sends applicant data to an unapproved host',
    by: OPERATOR,
  });
  await decidedReview(stack);
  await refusedByQuota(stack, tenantId, admin);
}
