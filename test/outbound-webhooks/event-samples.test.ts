// GET /webhook-events' samples against what the real writers write: every event type of the catalogue is
// raised through the code that writes it (raise-events.ts: API calls, real runs on the worker, operator
// commands), and each sample's data must have the keys the raised event's data has, nested objects and
// objects in arrays included. An event type no writer raised here fails, unless another part of the
// product writes it (WRITTEN_ELSEWHERE). Each sample is also a body as deliveries send it.
import { and, inArray, isNotNull } from 'drizzle-orm';
import { Value } from 'typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents } from '../../src/audit/tables.ts';
import { sampleBody } from '../../src/outbound-webhooks/fan-out/event-samples.ts';
import { EVENT_TYPES, PING } from '../../src/outbound-webhooks/fan-out/event-types.ts';
import { eventCatalogue } from '../../src/outbound-webhooks/fan-out/events-routes.ts';
import { EventBodySchema, EventCatalogue } from '../../src/outbound-webhooks/schemas.ts';
import { type RunsStack, startRunsStack } from '../runs/stack.ts';
import { raiseEveryEvent } from './raise-events.ts';

/**
 * Event types whose audit actions the cases part of the product writes: cases are not in this repository
 * (docs/outbound-webhooks.md "Events"), so their samples follow the documented shapes. Nothing else may
 * go unraised.
 */
const WRITTEN_ELSEWHERE = [
  'case.created',
  'case.assigned',
  'case.decided',
  'case.closed',
  'case.sla.breached',
];

/**
 * Paths whose members depend on something else than the event type, compared by presence only: a failed
 * run's error details are the error code's own (docs/errors.md).
 */
const FREE_FORM = new Set(['error.details']);

/** Every key path of a JSON value: `a`, `a.b`, `list[].c` (objects in arrays merged). Pure. */
function keyPaths(value: unknown, at = ''): string[] {
  if (FREE_FORM.has(at)) return [];
  if (Array.isArray(value)) return [...new Set(value.flatMap((item) => keyPaths(item, `${at}[]`)))];
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, member]) => {
    const path = at ? `${at}.${key}` : key;
    return [path, ...keyPaths(member, path)];
  });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Event types about a run, its decision or its cases: their bodies carry the run's id. */
const ABOUT_A_RUN = ['decision', 'case', 'workflow_run'];

let stack: RunsStack;
let raised: (typeof auditEvents.$inferSelect)[];
beforeAll(async () => {
  stack = await startRunsStack([{ method: 'GET', path: '/check', json: { ok: true } }]);
  await raiseEveryEvent(stack);
  raised = await stack.platform.database.db
    .select()
    .from(auditEvents)
    // As the trail reader takes them (fanout.ts): the tenants' trails, never the operator's instance trail.
    .where(
      and(
        isNotNull(auditEvents.tenantId),
        inArray(
          auditEvents.action,
          EVENT_TYPES.flatMap((e) => e.actions),
        ),
      ),
    );
}, 300_000);
afterAll(async () => stack?.close());

describe('each event type raised through its real writer', () => {
  it.each(
    EVENT_TYPES.filter((e) => !WRITTEN_ELSEWHERE.includes(e.type)).map((e) => [e.type, e] as const),
  )('%s: raised, and its sample has the keys of what it writes, about the same resource type', (type, eventType) => {
    const rows = raised.filter((row) => eventType.actions.includes(row.action));
    expect(rows.length, `nothing raised ${type} (actions ${eventType.actions.join(', ')})`).toBeGreaterThan(
      0,
    );
    const sample = sampleBody(type);
    const sampleKeys = keyPaths(sample?.data).sort();
    for (const row of rows) {
      expect(keyPaths(row.data).sort(), `${row.action} as written vs the sample of ${type}`).toEqual(
        sampleKeys,
      );
      expect(row.resourceType).toBe(sample?.resource.type);
    }
  });

  it('leaves unraised only the event types another part of the product writes', () => {
    const unraised = EVENT_TYPES.filter((e) => !raised.some((row) => e.actions.includes(row.action)));
    expect(unraised.map((e) => e.type)).toEqual(WRITTEN_ELSEWHERE);
  });

  it('names the version a change moves from (fromVersion; an automatic upgrade’s: test/upgrades/upgrades.test.ts)', () => {
    const change = raised.find((row) => row.action === 'app.install.change.requested');
    expect(change?.data).toMatchObject({ fromVersion: '1.0.0', version: '1.1.0' });
  });
});

describe('keyPaths', () => {
  it.each([
    [{ a: 1, b: { c: null, d: { e: 'x' } } }, ['a', 'b', 'b.c', 'b.d', 'b.d.e']],
    [{ list: [{ a: 1 }, { b: 2 }, { a: 3 }], names: ['x'] }, ['list', 'list[].a', 'list[].b', 'names']],
    [{ error: { code: 'x', details: { reason: 'timeout' } } }, ['error', 'error.code', 'error.details']],
    [null, []],
  ])('reads %j as %j', (value, paths) => {
    expect(keyPaths(value)).toEqual(paths);
  });
});

describe('sample bodies', () => {
  it.each([...EVENT_TYPES.map((e) => e.type), PING])('%s has one, a body as deliveries send it', (type) => {
    const body = sampleBody(type);
    expect(body).not.toBeNull();
    expect(Value.Check(EventBodySchema, body), JSON.stringify(body)).toBe(true);
    expect(Object.keys(body ?? {})).toEqual(['id', 'type', 'occurredAt', 'tenantId', 'resource', 'data']);
    expect(body?.type).toBe(type);
    expect(body?.id).toMatch(UUID);
    expect(body?.tenantId).toMatch(UUID);
    expect(new Date(body?.occurredAt ?? '').toISOString()).toBe(body?.occurredAt);
    if (ABOUT_A_RUN.includes(body?.resource.type ?? '')) expect(body?.data.workflowRunId).toMatch(UUID);
  });

  it('is the caller’s own tenant when one is named, and none for an unknown type; a ping is about its endpoint', () => {
    const tenantId = '11111111-2222-4333-8444-555555555555';
    expect(sampleBody('run.completed', tenantId)?.tenantId).toBe(tenantId);
    expect(sampleBody('run.started')).toBeNull();
    expect(sampleBody('toString')).toBeNull();
    expect(sampleBody(PING)).toMatchObject({ resource: { type: 'webhook_endpoint' }, data: {} });
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
