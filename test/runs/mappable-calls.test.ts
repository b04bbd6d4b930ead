// `mappable` checked on every call (a mapping key outside it fails the call with a validation error before
// the module runs; docs/calls.md), not only when a definition is validated:
// a published workflow and rule set keep mapping run data into a field after their install moved to a
// version whose action no longer lets run data fill it. Through the real api, worker and runner, with
// the echo module (which answers the envelope it received) released as two versions of one app.
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appInvocations, appMetering } from '../../src/calls/tables.ts';
import { ok } from '../installs/support.ts';
import { type RunAnswer, type RunsStack, settledRun, startRunsStack } from './stack.ts';
import { type Definition, definitionCalls, releaseModules } from './support.ts';

let stack: RunsStack;
let admin: string;
const versions: Record<string, string> = {};

// 1.0.0 lets run data fill any field of screen; 1.1.0 only /person.
const screen = { name: 'screen', input: { type: 'object' }, output: { type: 'object' } };
const narrowed = { ...screen, mappable: ['/person'] };

beforeAll(async () => {
  stack = await startRunsStack([]);
  admin = await stack.platform.token({ tenant: 'mapper' });
  await releaseModules(stack.platform, [
    { name: 'narrowing', version: '1.0.0', actions: [screen], webhook: false },
    { name: 'narrowing', version: '1.1.0', actions: [narrowed], webhook: false },
  ]);
  const listed = await ok<{ items: { id: string; version: string }[] }>(
    await stack.platform.fetch('/apps/narrowing/versions', { token: admin }),
  );
  for (const v of listed.items) versions[v.version] = v.id;
}, 120_000);
afterAll(async () => stack?.close());

const api = definitionCalls(
  () => stack.platform,
  () => versions,
);
const mapping = { 'person.name': 'applicant.name', 'taxId.value': 'applicant.taxId' };
const applicant = { name: 'Ada Lovelace', taxId: 'TAX-993-41' };

async function moveTo(install: string, version: string) {
  await ok(
    await api.call(`/app-installs/${install}`, admin, 'PUT', {
      versionId: versions[version],
      enabled: true,
      config: {},
    }),
  );
}

async function run(workflow: string): Promise<RunAnswer> {
  const started = await ok<RunAnswer>(
    await api.call('/workflow-runs', admin, 'POST', { workflow, subjectId: 'ada', context: { applicant } }),
    201,
  );
  return settledRun(stack, started.id, admin);
}

const callsMetered = async (installId: string) => {
  const rows = await stack.platform.database.db
    .select()
    .from(appMetering)
    .where(eq(appMetering.installId, installId));
  return rows.reduce((sum, row) => sum + row.calls, 0);
};

describe('mappable on every call', () => {
  it('fails a published step with validation_error once its install runs a version restricting mappable', async () => {
    const { id: installId } = await ok<{ id: string }>(
      await api.call('/app-installs', admin, 'POST', {
        name: 'screener',
        versionId: versions['1.0.0'],
        approveHosts: ['api.vendor.test'],
      }),
      201,
    );
    await api.published(admin, 'workflow', 'screening', {
      steps: [
        {
          id: 'screen',
          type: 'call_app',
          install: 'screener',
          action: 'screen',
          inputMapping: mapping,
          outputKey: 'out',
        },
      ],
    });

    // On 1.0.0 the run's data reaches the module in both fields.
    const before = await run('screening');
    expect(before.status).toBe('completed');
    expect(before.context).toMatchObject({
      out: { envelope: { input: { person: { name: 'Ada Lovelace' }, taxId: { value: 'TAX-993-41' } } } },
    });
    expect(await callsMetered(installId)).toBe(1);

    await moveTo('screener', '1.1.0');
    const after = await run('screening');
    expect(after.status).toBe('failed');
    const issues = [
      {
        path: '/inputMapping/taxId.value',
        message: 'narrowing 1.1.0 lets run data fill only /person of action screen',
      },
    ];
    expect(after.steps[0]).toMatchObject({
      status: 'failed',
      attempts: 1,
      error: { code: 'validation_error', details: { issues } },
    });
    expect(after.error).toMatchObject({ code: 'validation_error', details: { issues } });

    // Refused at admission: recorded as the refusal, never sent, never metered.
    const records = await stack.platform.database.db
      .select()
      .from(appInvocations)
      .where(eq(appInvocations.workflowRunId, after.id));
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      status: 'error',
      durationMs: 0,
      version: '1.1.0',
      error: { code: 'validation_error' },
      output: null,
    });
    expect(await callsMetered(installId)).toBe(1);

    // The published version now shows the error validation gives it.
    const shown = await ok<Definition>(await api.get(admin, 'workflow', 'screening'));
    expect(shown.published?.validation.errors.map((e) => [e.code, e.path])).toEqual([
      ['unmappable_input', '/steps/0/inputMapping/taxId.value'],
    ]);
  });

  it('keeps a mapping within mappable working on the restricting version', async () => {
    await ok(
      await api.call('/app-installs', admin, 'POST', {
        name: 'primary',
        versionId: versions['1.1.0'],
        approveHosts: ['api.vendor.test'],
      }),
      201,
    );
    await api.published(admin, 'workflow', 'within', {
      steps: [
        {
          id: 'screen',
          type: 'call_app',
          install: 'primary',
          action: 'screen',
          inputMapping: { 'person.name': 'applicant.name' },
          outputKey: 'out',
        },
      ],
    });
    const done = await run('within');
    expect(done.status).toBe('completed');
    expect(done.context).toMatchObject({
      out: { envelope: { input: { person: { name: 'Ada Lovelace' } } } },
    });
  });

  it('fails an app rule of a published rule set the same way, before the module runs', async () => {
    const { id: installId } = await ok<{ id: string }>(
      await api.call('/app-installs', admin, 'POST', {
        name: 'ruler',
        versionId: versions['1.0.0'],
        approveHosts: ['api.vendor.test'],
      }),
      201,
    );
    await api.published(admin, 'rule_set', 'checks', {
      rules: [
        {
          key: 'screen',
          type: 'app',
          install: 'ruler',
          action: 'screen',
          inputMapping: mapping,
          resultPath: 'envelope.input.person.name',
          failWhen: { equals: 'nobody' },
        },
      ],
    });
    const evaluate = () =>
      api.call('/rule-sets/checks/evaluate', admin, 'POST', { data: { applicant }, subjectId: 'ada' });
    expect(await ok(await evaluate())).toMatchObject({ passed: true, rules: [{ status: 'passed' }] });

    await moveTo('ruler', '1.1.0');
    const refused = await ok<{ passed: boolean; rules: { status: string; error?: unknown }[] }>(
      await evaluate(),
    );
    expect(refused).toMatchObject({
      passed: false,
      rules: [
        {
          status: 'error',
          error: {
            code: 'validation_error',
            details: {
              issues: [
                {
                  path: '/inputMapping/taxId.value',
                  message: 'narrowing 1.1.0 lets run data fill only /person of action screen',
                },
              ],
            },
          },
        },
      ],
    });
    expect(await callsMetered(installId)).toBe(1);
    const records = await stack.platform.database.db
      .select()
      .from(appInvocations)
      .where(and(eq(appInvocations.installId, installId), eq(appInvocations.status, 'error')));
    expect(records.map((r) => (r.error as { code: string }).code)).toEqual(['validation_error']);
  });

  it('still lets a test call set any field: its input is literal, not run data', async () => {
    const tested = await ok<{ status: string }>(
      await api.call('/app-installs/ruler/test', admin, 'POST', {
        action: 'screen',
        input: { taxId: { value: 'literal' } },
      }),
    );
    expect(tested.status).toBe('success');
  });
});
