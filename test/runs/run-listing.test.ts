// GET /workflow-runs' filters through the real api, over runs written straight into workflow_runs (the
// listing reads what is there, whoever wrote it): status (waiting_callback too), workflow, subjectId and
// the from/to bounds on createdAt the other record listings take, each narrowing the paged list; another
// tenant's runs never listed; a bad query refused at its parameter.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunStatus } from '../../src/runs/model.ts';
import { workflowRuns } from '../../src/runs/tables.ts';
import { errorOf, ok } from '../installs/support.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform();
}, 120_000);
afterAll(async () => platform?.close());

interface Listing {
  items: { id: string; workflow: string; subjectId: string; status: RunStatus; createdAt: string }[];
  total: number;
  totalIsEstimate: boolean;
}

const at = (minute: number) => new Date(Date.parse('2030-05-01T10:00:00Z') + minute * 60_000);

async function insertRun(
  tenantId: string,
  fields: { minute: number; status?: RunStatus; workflow?: string; subjectId?: string },
): Promise<string> {
  const [row] = await platform.database.db
    .insert(workflowRuns)
    .values({
      tenantId,
      definitionId: randomUUID(),
      definitionVersionId: randomUUID(),
      workflowKey: fields.workflow ?? 'onboarding',
      version: 1,
      subjectId: fields.subjectId ?? 'applicant-1',
      status: fields.status ?? 'completed',
      context: {},
      createdBy: 'user:test',
      createdAt: at(fields.minute),
      updatedAt: at(fields.minute),
    })
    .returning({ id: workflowRuns.id });
  if (!row) throw new Error('no run written');
  return row.id;
}

const listed = async (tenant: string, query: string) =>
  ok<Listing>(await platform.fetch(`/workflow-runs?${query}`, { token: await platform.token({ tenant }) }));

describe('GET /workflow-runs filters', () => {
  it('bounds createdAt by from (inclusive) and to (exclusive), with the other filters, paged', async () => {
    const tenantId = await platform.tenantId('runs-window');
    const ids: string[] = [];
    for (let minute = 0; minute < 5; minute++) {
      ids.push(
        await insertRun(tenantId, {
          minute,
          status: minute % 2 === 0 ? 'waiting_callback' : 'completed',
          subjectId: minute === 2 ? 'applicant-2' : 'applicant-1',
        }),
      );
    }
    await insertRun(tenantId, {
      minute: 3,
      workflow: 'screening',
      status: 'waiting_callback',
      subjectId: 'applicant-2',
    });
    // Another tenant's run inside the window is never listed.
    await insertRun(await platform.tenantId('runs-stranger'), { minute: 2, status: 'waiting_callback' });

    const window = `from=${at(1).toISOString()}&to=${at(4).toISOString()}`;
    const inWindow = await listed('runs-window', `workflow=onboarding&${window}`);
    expect(inWindow.items.map((r) => r.id)).toEqual([ids[3], ids[2], ids[1]]);
    expect(inWindow.total).toBe(3);

    const waiting = await listed('runs-window', `status=waiting_callback&${window}`);
    expect(waiting.items.map((r) => [r.workflow, r.status])).toEqual([
      ['screening', 'waiting_callback'],
      ['onboarding', 'waiting_callback'],
    ]);
    expect(waiting.total).toBe(2);

    const onlyFrom = await listed('runs-window', `workflow=onboarding&from=${at(3).toISOString()}`);
    expect(onlyFrom.items.map((r) => r.id)).toEqual([ids[4], ids[3]]);
    // An offset in another zone names the same instant: to is exclusive there too.
    const onlyTo = await listed('runs-window', `workflow=onboarding&to=2030-05-01T12:01:00%2B02:00`);
    expect(onlyTo.items.map((r) => r.id)).toEqual([ids[0]]);

    const subject = await listed('runs-window', `subjectId=applicant-2&${window}&limit=1`);
    expect(subject).toMatchObject({ total: 2, totalIsEstimate: false });
    expect(subject.items.map((r) => r.subjectId)).toEqual(['applicant-2']);

    const paged = await listed('runs-window', `workflow=onboarding&${window}&limit=2&offset=1`);
    expect(paged.total).toBe(3);
    expect(paged.items.map((r) => r.id)).toEqual([ids[2], ids[1]]);

    expect(await listed('runs-stranger', `workflow=onboarding&${window}`)).toMatchObject({ total: 1 });
    expect(await listed('runs-nobody', window)).toEqual({ items: [], total: 0, totalIsEstimate: false });
  });

  it('refuses a bad query with 400 validation_error at its parameter, as the other listings do', async () => {
    const AFTER = 'must be after from';
    for (const [query, path, message] of [
      ['from=yesterday', 'query.from', 'must match format "date-time"'],
      ['to=2030-13-01T00:00:00Z', 'query.to', 'must match format "date-time"'],
      ['from=2030-05-02T00:00:00Z&to=2030-05-01T00:00:00Z', 'query.to', AFTER],
      ['from=2030-05-01T00:00:00Z&to=2030-05-01T00:00:00Z', 'query.to', AFTER],
      ['from=2030-05-01T02:00:00%2B02:00&to=2030-05-01T00:00:00Z', 'query.to', AFTER],
      ['status=waiting', 'query.status', undefined],
      ['workflow=has%20space', 'query.workflow', undefined],
      ['colour=red', 'query.colour', undefined],
    ]) {
      const error = await errorOf(await platform.fetch(`/workflow-runs?${query}`), 400);
      const issue = message === undefined ? { path } : { path, message };
      expect(error, query).toMatchObject({
        code: 'validation_error',
        details: { issues: expect.arrayContaining([expect.objectContaining(issue)]) },
      });
    }
  });
});
