// A sample body per event type for GET /webhook-events: { id, type, occurredAt, tenantId, resource,
// data }, data as the audit row behind the event writes it (the delivery body is built from that row,
// event-body.ts), with made-up values. Where nothing writes the action yet (cases,
// link requests) the data is the shape the event is documented with
// (docs/outbound-webhooks.md "Events"). Pure.
import { type EventBody, eventBody } from './event-body.ts';
import { EVENT_TYPES, PING } from './event-types.ts';

const TENANT = '00000000-0000-4000-8000-000000000000';
const RUN = '3f6b1c2a-7d4e-4c1b-9a8e-2b7c5d9e0f11';
const INSTALL = '8c2d4e6f-1a3b-4c5d-8e7f-9a0b1c2d3e4f';
const CASE = '5a7b9c1d-2e3f-4a5b-9c6d-7e8f9a0b1c2d';
const APPROVAL = '6e1f2a3b-4c5d-4e6f-8a7b-9c0d1e2f3a4b';
const SUBJECT = 'subject-1842';
const OCCURRED_AT = new Date('2025-06-02T09:30:00.000Z');

interface Sample {
  resourceId: string;
  workflowRunId?: string;
  data: Record<string, unknown>;
}

const install = { name: 'kyc-check', appName: 'id-verify' };

/** By event type (and ping): what its audit row writes. */
const SAMPLES: Readonly<Record<string, Sample>> = {
  // src/runs/run-store.ts auditDecision: the decision's id is `<run id>:<decide step id>`.
  'decision.created': {
    resourceId: `${RUN}:decide`,
    workflowRunId: RUN,
    data: { outcome: 'review', riskScore: 62, source: 'decide', workflowRunId: RUN, subjectId: SUBJECT },
  },
  'case.created': {
    resourceId: CASE,
    workflowRunId: RUN,
    data: {
      workflowRunId: RUN,
      subjectId: SUBJECT,
      queue: 'manual-review',
      reason: 'risk score 62 at or above 50',
      dueAt: '2025-06-03T09:30:00.000Z',
    },
  },
  'case.assigned': {
    resourceId: CASE,
    workflowRunId: RUN,
    data: { workflowRunId: RUN, subjectId: SUBJECT, assignee: 'grace', previousAssignee: null },
  },
  'case.decided': {
    resourceId: CASE,
    workflowRunId: RUN,
    data: { workflowRunId: RUN, subjectId: SUBJECT, outcome: 'approve', comment: 'documents match' },
  },
  'case.closed': {
    resourceId: CASE,
    workflowRunId: RUN,
    data: { workflowRunId: RUN, subjectId: SUBJECT, outcome: 'approve' },
  },
  'case.sla.breached': {
    resourceId: CASE,
    workflowRunId: RUN,
    data: { workflowRunId: RUN, subjectId: SUBJECT, dueAt: '2025-06-02T09:00:00.000Z', assignee: 'grace' },
  },
  // src/runs/run-store.ts auditEnd.
  'run.completed': {
    resourceId: RUN,
    workflowRunId: RUN,
    data: { workflowRunId: RUN, workflow: 'onboarding', version: 3, subjectId: SUBJECT },
  },
  'run.failed': {
    resourceId: RUN,
    workflowRunId: RUN,
    data: {
      workflowRunId: RUN,
      workflow: 'onboarding',
      version: 3,
      subjectId: SUBJECT,
      stepId: 'verify-identity',
      error: {
        code: 'app_call_failed',
        message: 'kyc-check verify failed: the vendor did not answer in time',
        details: { reason: 'timeout' },
      },
    },
  },
  // Definition approvals are audited { kind, key, version, approvalId, comment? } (src/runs/definitions/approvals-store.ts).
  'approval.requested': {
    resourceId: APPROVAL,
    data: { kind: 'workflow', key: 'onboarding', version: 4, approvalId: APPROVAL },
  },
  'approval.decided': {
    resourceId: APPROVAL,
    data: {
      kind: 'workflow',
      key: 'onboarding',
      version: 4,
      approvalId: APPROVAL,
      comment: 'Checked with compliance',
    },
  },
  // src/installs/circuit/circuit-store.ts announce: the install, its app, the failures and the settings.
  'app.circuit.opened': {
    resourceId: INSTALL,
    data: {
      install: 'kyc-check',
      installId: INSTALL,
      app: 'id-verify',
      failures: 5,
      failureThreshold: 5,
      openSeconds: 30,
    },
  },
  // src/installs/changes/changes-store.ts requestChange (through the installs' audit, name and appName first).
  'app.install.change.requested': {
    resourceId: INSTALL,
    data: {
      ...install,
      changeId: '0b1c2d3e-4f5a-4b6c-8d7e-8f9a0b1c2d3e',
      versionId: '1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f',
      version: '1.3.0',
      previousVersionId: '2d3e4f5a-6b7c-4d8e-9f0a-1b2c3d4e5f6a',
      fromVersion: '1.2.0',
      hosts: ['api.idverify.example', 'eu.idverify.example'],
      hostsAdded: ['eu.idverify.example'],
      hostsRemoved: [],
      newInstall: false,
      origin: 'save',
      needsAdded: [],
      handlesAdded: [],
      readsDocuments: false,
      receivesWebhooks: true,
      enabled: true,
      autoUpgrade: 'off',
      comment: 'EU data residency',
    },
  },
  // src/installs/upgrade/upgrade-moves.ts recordUpgraded (the platform's move, and an approved change's).
  'app.install.upgraded': {
    resourceId: INSTALL,
    data: {
      ...install,
      fromVersionId: '2d3e4f5a-6b7c-4d8e-9f0a-1b2c3d4e5f6a',
      fromVersion: '1.2.0',
      toVersionId: '1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f',
      toVersion: '1.3.0',
      automatic: true,
      rollback: false,
      hostsRemoved: [],
    },
  },
  // src/catalogue/operator-blocks.ts setBlock: one per install running a version the block covers.
  'app.module.blocked': {
    resourceId: INSTALL,
    data: {
      ...install,
      versionId: '2d3e4f5a-6b7c-4d8e-9f0a-1b2c3d4e5f6a',
      version: '1.2.0',
      sha256: 'a3f1c9e2b7d04f6a8c5e1b3d9f7a2c4e6b8d0f1a3c5e7b9d1f3a5c7e9b1d3f5a',
      scope: 'module',
      reason: 'sends applicant data to an unapproved host',
    },
  },
  // src/calls/quota-check.ts recordFirstRefusal.
  'app.quota.exceeded': {
    resourceId: INSTALL,
    data: {
      install: 'kyc-check',
      app: 'id-verify',
      scope: 'install',
      metric: 'calls',
      period: 'day',
      max: 1000,
      used: 1000,
      currency: null,
      periodStart: '2025-06-02T00:00:00.000Z',
      resetsAt: '2025-06-03T00:00:00.000Z',
    },
  },
  // src/catalogue/reviews.ts decideReview.
  'app.review.decided': {
    resourceId: '7f2a3b4c-5d6e-4f7a-8b9c-0d1e2f3a4b5c',
    data: {
      name: 'risk-notes',
      version: '0.4.0',
      reviewId: '9a0b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c2e',
      decision: 'approved',
      comment: null,
    },
  },
  // src/collections/link-requests-store.ts requestLink: the submission's run, and when its link expired.
  'submission.link_requested': {
    resourceId: '4b5c6d7e-8f9a-4b0c-9d1e-2f3a4b5c6d7e',
    workflowRunId: RUN,
    data: { workflowRunId: RUN, linkExpiredAt: '2025-06-01T21:30:00.000Z' },
  },
  [PING]: { resourceId: '2e3f4a5b-6c7d-4e8f-9a0b-1c2d3e4f5a6b', data: {} },
};

/** The resource type of an event type; a ping is about the endpoint it tests. */
export function resourceTypeOf(type: string): string | null {
  if (type === PING) return 'webhook_endpoint';
  return EVENT_TYPES.find((e) => e.type === type)?.resourceType ?? null;
}

/** The sample body of an event type (or ping) as `tenantId` would receive it; null for an unknown type. */
export function sampleBody(type: string, tenantId: string = TENANT): EventBody | null {
  const resourceType = resourceTypeOf(type);
  if (!Object.hasOwn(SAMPLES, type) || resourceType === null) return null;
  const sample = SAMPLES[type] as Sample;
  return eventBody({
    eventId: '0d9c8b7a-6f5e-4d3c-8b2a-1f0e9d8c7b6a',
    eventType: type,
    tenantId,
    occurredAt: OCCURRED_AT,
    resourceType,
    resourceId: sample.resourceId,
    data: sample.data,
    workflowRunId: sample.workflowRunId ?? null,
  });
}
