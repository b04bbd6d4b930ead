// GET /webhook-events' samples: every event type (and ping) has one, and each is a body as deliveries
// send it: { id, type, occurredAt, tenantId, resource { type, id }, data }, with the type's resource type.
import { Value } from 'typebox/value';
import { describe, expect, it } from 'vitest';
import { eventCatalogue } from '../../src/outbound-webhooks/event-routes.ts';
import { resourceTypeOf, sampleBody } from '../../src/outbound-webhooks/event-samples.ts';
import { EVENT_TYPES, PING } from '../../src/outbound-webhooks/event-types.ts';
import { EventBodySchema, EventCatalogue } from '../../src/outbound-webhooks/schemas.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Event types about a run, its decision or its cases: their bodies carry the run's id. */
const ABOUT_A_RUN = ['decision', 'case', 'workflow_run'];

describe('sample bodies', () => {
  it.each([...EVENT_TYPES.map((e) => e.type), PING])('%s has a valid one', (type) => {
    const body = sampleBody(type);
    expect(body).not.toBeNull();
    expect(Value.Check(EventBodySchema, body), JSON.stringify(body)).toBe(true);
    expect(Object.keys(body ?? {})).toEqual(['id', 'type', 'occurredAt', 'tenantId', 'resource', 'data']);
    expect(body?.type).toBe(type);
    expect(body?.id).toMatch(UUID);
    expect(body?.tenantId).toMatch(UUID);
    expect(new Date(body?.occurredAt ?? '').toISOString()).toBe(body?.occurredAt);
    expect(body?.resource.type).toBe(resourceTypeOf(type));
    if (ABOUT_A_RUN.includes(body?.resource.type ?? '')) expect(body?.data.workflowRunId).toMatch(UUID);
  });

  it('is the caller’s own tenant when one is named, and none for an unknown type', () => {
    const tenantId = '11111111-2222-4333-8444-555555555555';
    expect(sampleBody('run.completed', tenantId)?.tenantId).toBe(tenantId);
    expect(sampleBody('run.started')).toBeNull();
    expect(sampleBody('toString')).toBeNull();
  });

  it('writes what the audit rows behind the events write', () => {
    expect(sampleBody('decision.created')?.data).toEqual({
      outcome: expect.any(String),
      riskScore: expect.any(Number),
      source: expect.any(String),
      workflowRunId: expect.stringMatching(UUID),
      subjectId: expect.any(String),
    });
    expect(Object.keys(sampleBody('app.install.upgraded')?.data ?? {})).toEqual([
      'name',
      'appName',
      'fromVersionId',
      'fromVersion',
      'toVersionId',
      'toVersion',
      'automatic',
      'rollback',
      'hostsRemoved',
    ]);
    expect(Object.keys(sampleBody('app.module.blocked')?.data ?? {})).toEqual([
      'name',
      'appName',
      'versionId',
      'version',
      'sha256',
      'scope',
      'reason',
    ]);
    expect(Object.keys(sampleBody('app.quota.exceeded')?.data ?? {})).toEqual([
      'install',
      'app',
      'scope',
      'metric',
      'period',
      'max',
      'used',
      'currency',
      'periodStart',
      'resetsAt',
    ]);
    expect(Object.keys(sampleBody('app.review.decided')?.data ?? {})).toEqual([
      'name',
      'version',
      'reviewId',
      'decision',
      'comment',
    ]);
    expect(sampleBody(PING)?.data).toEqual({});
  });
});

describe('the catalogue', () => {
  it('lists every event type, then ping, each with its actions and a sample', () => {
    const catalogue = eventCatalogue();
    expect(Value.Check(EventCatalogue, { items: catalogue })).toBe(true);
    expect(catalogue.map((e) => e.type)).toEqual([...EVENT_TYPES.map((e) => e.type), PING]);
    expect(catalogue.find((e) => e.type === 'approval.decided')?.actions).toEqual([
      'definition.approval.approved',
      'definition.approval.rejected',
      'definition.approval.withdrawn',
    ]);
    expect(catalogue.at(-1)).toMatchObject({ type: PING, actions: [], resourceType: 'webhook_endpoint' });
  });
});
