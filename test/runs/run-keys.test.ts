// Idempotency-Key on POST /workflow-runs (docs/runs.md "Starting a run twice") through the real api,
// worker and runner: a start retried with its key answers the run the first start made, and the vendor
// is called once; the key with another request is 409; concurrent starts with one key make one run.
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgetLapsedRunKeys } from '../../src/runs/sweep.ts';
import { workflowRunKeys, workflowRuns } from '../../src/runs/tables.ts';
import { errorOf, ok } from '../installs/support.ts';
import {
  installConnector,
  publishDefinition,
  type RunAnswer,
  type RunsStack,
  requestStep,
  settledRun,
  startRunsStack,
} from './stack.ts';

let stack: RunsStack;
let tenantId: string;

beforeAll(async () => {
  stack = await startRunsStack([{ method: 'GET', path: '/screen', json: { clear: true } }]);
  tenantId = await stack.platform.tenantId();
  await installConnector(stack, 'vendor');
  await publishDefinition(stack, tenantId, 'workflow', 'screen', {
    steps: [
      requestStep('vendor', '/screen', {
        id: 'fetch',
        inputMapping: { 'query.name': 'applicant.name' },
        outputKey: 'vendor',
      }),
    ],
  });
}, 120_000);
afterAll(async () => stack?.close());

const body = (name: string) => ({
  workflow: 'screen',
  subjectId: 'applicant-42',
  context: { applicant: { name } },
});
const start = (json: unknown, key?: string, token?: string) =>
  stack.platform.fetch('/workflow-runs', {
    method: 'POST',
    json,
    headers: key === undefined ? {} : { 'idempotency-key': key },
    ...(token ? { token } : {}),
  });
const vendorCallsFor = (name: string) => stack.vendor.requests.filter((r) => r.query.name === name).length;
const runsOf = async (subjectId: string, tenant = tenantId) =>
  stack.platform.database.db
    .select({ id: workflowRuns.id })
    .from(workflowRuns)
    .where(and(eq(workflowRuns.tenantId, tenant), eq(workflowRuns.subjectId, subjectId)));

describe('Idempotency-Key on POST /workflow-runs', () => {
  it('answers a repeated start with the run the first one made (200, Idempotent-Replayed), calling the vendor once', async () => {
    const first = await start(body('Ada'), 'start-ada-1');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const started = await ok<RunAnswer>(first, 201);
    const done = await settledRun(stack, started.id);
    expect(done.status).toBe('completed');

    // The same request written another way (members in another order) is the same request.
    const again = await start(
      { context: { applicant: { name: 'Ada' } }, subjectId: 'applicant-42', workflow: 'screen' },
      'start-ada-1',
    );
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const replayed = await ok<RunAnswer>(again, 200);
    // The run as it stands now, not a copy of the first answer.
    expect(replayed).toMatchObject({ id: started.id, status: 'completed', steps: [{ status: 'completed' }] });
    expect(vendorCallsFor('Ada')).toBe(1);
    expect(await runsOf('applicant-42')).toHaveLength(1);

    // Without a key every start is a run of its own.
    const a = await ok<RunAnswer>(await start(body('Bea')), 201);
    const b = await ok<RunAnswer>(await start(body('Bea')), 201);
    expect(a.id).not.toBe(b.id);
  });

  it('refuses the key with another request: 409 idempotency_conflict, nothing started', async () => {
    const started = await ok<RunAnswer>(await start(body('Cy'), 'start-cy'), 201);
    const runsBefore = (await runsOf('applicant-42')).length;
    const refused = await errorOf(await start(body('Dee'), 'start-cy'), 409);
    expect(refused).toMatchObject({ code: 'idempotency_conflict' });
    expect(refused.message).toContain('start-cy');
    expect(refused.message).not.toContain('Dee');
    // A left-out context is the {} the run gets: another request than one with a context.
    const bare = await errorOf(
      await start({ workflow: 'screen', subjectId: 'applicant-42' }, 'start-cy'),
      409,
    );
    expect(bare.code).toBe('idempotency_conflict');
    expect((await runsOf('applicant-42')).length).toBe(runsBefore);
    await settledRun(stack, started.id);
    expect(vendorCallsFor('Dee')).toBe(0);
  });

  it('starts one run for concurrent starts with one key; the others answer it', async () => {
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => start({ ...body('Eve'), subjectId: 'concurrent' }, 'start-eve')),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
    const runs = await Promise.all(answers.map((a) => ok<RunAnswer>(a, a.status)));
    expect(new Set(runs.map((r) => r.id)).size).toBe(1);
    expect(await runsOf('concurrent')).toHaveLength(1);
    await settledRun(stack, runs[0]?.id as string);
    expect(vendorCallsFor('Eve')).toBe(1);
  });

  it('keeps keys per tenant: another tenant’s start with the same key is its own run', async () => {
    const mine = await ok<RunAnswer>(await start(body('Fay'), 'shared-key'), 201);
    const otherToken = await stack.platform.token({ tenant: 'keys-other' });
    const otherTenant = await stack.platform.tenantId('keys-other');
    // The other tenant has no such workflow: refused before its key is taken, and the key stays free.
    expect((await errorOf(await start(body('Fay'), 'shared-key', otherToken), 404)).code).toBe('not_found');
    await publishDefinition(stack, otherTenant, 'workflow', 'screen', {
      steps: [
        {
          id: 'd',
          type: 'decide',
          branches: [{ when: { path: 'x', exists: true }, outcome: 'review' }],
          otherwise: 'approve',
        },
      ],
    });
    const theirs = await ok<RunAnswer>(await start(body('Fay'), 'shared-key', otherToken), 201);
    expect(theirs.id).not.toBe(mine.id);
    // Each tenant's repeat answers its own run; neither sees the other's.
    expect((await ok<RunAnswer>(await start(body('Fay'), 'shared-key', otherToken), 200)).id).toBe(theirs.id);
    expect((await ok<RunAnswer>(await start(body('Fay'), 'shared-key'), 200)).id).toBe(mine.id);
    await settledRun(stack, mine.id);
  });

  it('starts a new run once the key is older than 24 hours', async () => {
    const first = await ok<RunAnswer>(await start(body('Gus'), 'start-gus'), 201);
    await settledRun(stack, first.id);
    const db = stack.platform.database.db;
    const age = (hours: number) =>
      db
        .update(workflowRunKeys)
        .set({ createdAt: sql`now() - make_interval(hours => ${hours})` })
        .where(and(eq(workflowRunKeys.tenantId, tenantId), eq(workflowRunKeys.key, 'start-gus')));
    await age(23);
    expect((await ok<RunAnswer>(await start(body('Gus'), 'start-gus'), 200)).id).toBe(first.id);
    await age(24);
    const second = await ok<RunAnswer>(await start(body('Other'), 'start-gus'), 201);
    expect(second.id).not.toBe(first.id);
    expect((await ok<RunAnswer>(await start(body('Other'), 'start-gus'), 200)).id).toBe(second.id);
    await settledRun(stack, second.id);
  });

  it('forgets keys past their window in the sweep, keeping the younger ones and what they answer', async () => {
    const young = await ok<RunAnswer>(await start(body('Hal'), 'young-key'), 201);
    const old = await ok<RunAnswer>(await start(body('Ida'), 'old-key'), 201);
    await Promise.all([settledRun(stack, young.id), settledRun(stack, old.id)]);
    const db = stack.platform.database.db;
    await db
      .update(workflowRunKeys)
      .set({ createdAt: sql`now() - make_interval(hours => 25)` })
      .where(and(eq(workflowRunKeys.tenantId, tenantId), eq(workflowRunKeys.key, 'old-key')));
    expect(await forgetLapsedRunKeys(stack.platform.database)).toBeGreaterThanOrEqual(1);
    const kept = await db
      .select({ key: workflowRunKeys.key })
      .from(workflowRunKeys)
      .where(eq(workflowRunKeys.tenantId, tenantId));
    expect(kept.map((k) => k.key)).toContain('young-key');
    expect(kept.map((k) => k.key)).not.toContain('old-key');
    expect((await ok<RunAnswer>(await start(body('Hal'), 'young-key'), 200)).id).toBe(young.id);
    // The run the forgotten key started is kept; the key starts a new one.
    expect((await ok<RunAnswer>(await start(body('Ida'), 'old-key'), 201)).id).not.toBe(old.id);
  });

  it('frees the key of a run the engine could not take: the retry starts it afresh', async () => {
    const pool = stack.platform.database.pool;
    // The engine refuses every run for a moment: a real failure of the enqueue, in the database.
    await pool.query(`create function refuse_runs() returns trigger language plpgsql as $$
      begin raise exception 'the engine is down'; end $$`);
    await pool.query(`create trigger refuse_runs before insert on dbos.workflow_status
      for each row when (new.name = 'runs.workflow') execute function refuse_runs()`);
    let failedId: string | undefined;
    try {
      const refused = await errorOf(await start(body('Ivy'), 'start-ivy'), 500);
      expect(refused.code).toBe('internal');
      const [failed] = await stack.platform.database.db
        .select({ id: workflowRuns.id, status: workflowRuns.status })
        .from(workflowRuns)
        .where(and(eq(workflowRuns.tenantId, tenantId), eq(workflowRuns.subjectId, 'applicant-42')))
        .orderBy(sql`${workflowRuns.createdAt} desc`)
        .limit(1);
      expect(failed?.status).toBe('failed');
      failedId = failed?.id;
    } finally {
      await pool.query('drop trigger refuse_runs on dbos.workflow_status');
      await pool.query('drop function refuse_runs()');
    }
    const retried = await ok<RunAnswer>(await start(body('Ivy'), 'start-ivy'), 201);
    expect(retried.id).not.toBe(failedId);
    expect((await settledRun(stack, retried.id)).status).toBe('completed');
    expect(vendorCallsFor('Ivy')).toBe(1);
  });

  it('declares the header and both successes in /openapi.json', async () => {
    const doc = await (await stack.platform.fetch('/openapi.json', { token: null })).json();
    const operation = doc.paths['/workflow-runs'].post;
    expect(operation.operationId).toBe('startWorkflowRun');
    expect(operation.parameters).toContainEqual(
      expect.objectContaining({
        in: 'header',
        name: 'idempotency-key',
        required: false,
        schema: expect.objectContaining({ maxLength: 255, pattern: '^[!-~]+$' }),
      }),
    );
    expect(Object.keys(operation.responses)).toEqual(
      expect.arrayContaining(['200', '201', '400', '404', '409']),
    );
    expect(operation.description).toContain('idempotency_conflict');
  });

  it('refuses a malformed key at headers.idempotency-key, before anything is written', async () => {
    const before = (await runsOf('applicant-42')).length;
    for (const key of ['', 'has space', 'k'.repeat(256), 'naïve']) {
      const refused = await errorOf(await start(body('Hal'), key), 400);
      expect(refused.code, JSON.stringify(key)).toBe('validation_error');
      expect((refused.details?.issues as { path: string }[]).map((i) => i.path)).toEqual([
        'headers.idempotency-key',
      ]);
    }
    expect((await runsOf('applicant-42')).length).toBe(before);
    // 255 visible characters are a key.
    const longest = await ok<RunAnswer>(await start(body('Hal'), '~'.repeat(255)), 201);
    await settledRun(stack, longest.id);
  });
});
